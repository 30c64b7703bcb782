// PNG heatmaps: cells through a colour map, nearest-neighbour upscaled, encoded by stb_image_write.
#include "attnviz/render/png.hpp"

#include <fmt/format.h>

#include <algorithm>
// Debian's libstb.so has the implementation compiled in: no STB_IMAGE_WRITE_IMPLEMENTATION here.
#include <stb/stb_image_write.h>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "shapes.hpp"

namespace attnviz {
namespace {

constexpr Rgb k_masked_rgb{128, 128, 128};
constexpr int k_max_side = 4096;  // upscaling stops here; a map with more cells stays 1 px per cell

size_t pixel_offset(const Image& image, int x, int y) {
  if (x < 0 || y < 0 || x >= image.width || y >= image.height) {
    throw Error(
        fmt::format("pixel ({}, {}) is outside the {}×{} image", x, y, image.width, image.height));
  }
  return (static_cast<size_t>(y) * static_cast<size_t>(image.width) + static_cast<size_t>(x)) * 3;
}

// cell_px = ceil(min_side / min(rows, cols)) so the short side reaches min_side, but no larger than
// keeps the long side within k_max_side; at least 1.
int cell_pixels(Eigen::Index rows, Eigen::Index cols, int min_side) {
  const auto short_side = static_cast<int>(std::min(rows, cols));
  const auto long_side = static_cast<int>(std::max(rows, cols));
  const int wanted = (std::max(min_side, 1) + short_side - 1) / short_side;
  return std::max(1, std::min(wanted, k_max_side / long_side));
}

void fill_block(Image& image, int x0, int y0, int size, Rgb c) {
  pixel_offset(image, x0 + size - 1, y0 + size - 1);  // bounds of the whole block, checked once
  for (int y = y0; y < y0 + size; ++y) {
    uint8_t* p = image.rgb.data() + pixel_offset(image, x0, y);
    for (int x = 0; x < size; ++x, p += 3) p[0] = c.r, p[1] = c.g, p[2] = c.b;
  }
}

void append_bytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                             static_cast<size_t>(size));
}

}  // namespace

Rgb Image::at(int x, int y) const {
  const size_t k = pixel_offset(*this, x, y);
  return {rgb[k], rgb[k + 1], rgb[k + 2]};
}

void Image::set(int x, int y, Rgb c) {
  const size_t k = pixel_offset(*this, x, y);
  rgb[k] = c.r;
  rgb[k + 1] = c.g;
  rgb[k + 2] = c.b;
}

Image heatmap_image(const Matrix& values, const Mask& mask, ColormapId cmap, float vmin, float vmax,
                    int min_side) {
  if (values.rows() == 0 || values.cols() == 0) {
    throw Error(
        fmt::format("heatmap image: the map is empty ([{}, {}])", values.rows(), values.cols()));
  }
  detail::check_map_shapes("heatmap image", values, mask, {}, {});
  const int cell = cell_pixels(values.rows(), values.cols(), min_side);
  Image image;
  image.width = static_cast<int>(values.cols()) * cell;
  image.height = static_cast<int>(values.rows()) * cell;
  image.rgb.assign(static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 3, 0);
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < values.cols(); ++j) {
      const Rgb c = mask.allowed(i, j, values.cols())
                        ? colormap(cmap, colormap_position(values(i, j), vmin, vmax))
                        : k_masked_rgb;
      fill_block(image, static_cast<int>(j) * cell, static_cast<int>(i) * cell, cell, c);
    }
  }
  return image;
}

std::string encode_png(const Image& image) {
  const size_t expected = static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 3;
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != expected) {
    throw Error(fmt::format("encode png: image {}×{} has {} bytes, expected {}", image.width,
                            image.height, image.rgb.size(), expected));
  }
  std::string bytes;
  if (stbi_write_png_to_func(append_bytes, &bytes, image.width, image.height, 3, image.rgb.data(),
                             image.width * 3) == 0) {
    throw Error(fmt::format("encode png: stb_image_write failed on a {}×{} image", image.width,
                            image.height));
  }
  return bytes;
}

void write_png(const std::filesystem::path& path, const Image& image) {
  write_file_atomically(path, encode_png(image));
}

}  // namespace attnviz
