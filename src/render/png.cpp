// PNG heatmaps: cells through a colour map, nearest-neighbour upscaled; PNG encoding with
// libdeflate (several times faster than stb_image_write's deflate, and smaller files).
#include "attnviz/render/png.hpp"

#include <fmt/format.h>
#include <libdeflate.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/vector_math.hpp"
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

// libdeflate level 4: measured on 512² heatmap figures, within a few % of level 9's size at a
// fraction of its time (bench/png_bench.sh).
constexpr int k_deflate_level = 4;

void append_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// A PNG chunk: length, type, data, CRC-32 of type + data.
void append_chunk(std::string& out, const char* type, std::string_view data) {
  append_u32(out, static_cast<uint32_t>(data.size()));
  const size_t start = out.size();
  out.append(type, 4);
  out.append(data);
  append_u32(out, libdeflate_crc32(0, out.data() + start, out.size() - start));
}

// Filtered scanlines: each row prefixed by its filter type. Per row the filter (None, Sub or Up)
// with the least sum of |signed bytes| wins — libpng's heuristic; Up turns the repeated rows of
// upscaled cells into zeros, Sub the runs inside a row.
std::string filtered_rows(const Image& image) {
  const size_t stride = static_cast<size_t>(image.width) * 3;
  std::string out;
  out.reserve((stride + 1) * static_cast<size_t>(image.height));
  // One loop per filter with no branch inside, so each vectorises.
  std::vector<uint8_t> sub(stride), up(stride);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.rgb.data() + static_cast<size_t>(y) * stride;
    const uint8_t* above = y > 0 ? row - stride : nullptr;
    for (size_t k = 0; k < std::min<size_t>(3, stride); ++k) sub[k] = row[k];
    for (size_t k = 3; k < stride; ++k) sub[k] = static_cast<uint8_t>(row[k] - row[k - 3]);
    if (above) {
      for (size_t k = 0; k < stride; ++k) up[k] = static_cast<uint8_t>(row[k] - above[k]);
    } else {
      std::copy(row, row + stride, up.begin());
    }
    const uint8_t* candidates[3] = {row, sub.data(), up.data()};
    uint64_t best_cost = 0;
    int best = 0;
    for (int f = 0; f < 3; ++f) {
      const uint64_t cost = sum_abs_int8(candidates[f], stride);
      if (f == 0 || cost < best_cost) best_cost = cost, best = f;
    }
    out.push_back(static_cast<char>(best));
    out.append(reinterpret_cast<const char*>(candidates[best]), stride);
  }
  return out;
}

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

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
      const float v = values(i, j);
      const Rgb c = !mask.allowed(i, j, values.cols()) ? k_masked_rgb
                    : std::isfinite(v) ? colormap(cmap, colormap_position(v, vmin, vmax))
                                       : k_non_finite_rgb;
      fill_block(image, static_cast<int>(j) * cell, static_cast<int>(i) * cell, cell, c);
    }
  }
  return image;
}

std::string encode_png(const Image& image, double dpi) {
  const size_t expected = static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 3;
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != expected) {
    throw Error(fmt::format("encode png: image {}×{} has {} bytes, expected {}", image.width,
                            image.height, image.rgb.size(), expected));
  }
  const std::string raw = filtered_rows(image);
  // A compressor per call: they are not thread-safe, and allocating one is cheap next to a figure.
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor(
      libdeflate_alloc_compressor(k_deflate_level));
  if (!compressor) throw Error("encode png: libdeflate could not allocate a compressor");
  std::string idat(libdeflate_zlib_compress_bound(compressor.get(), raw.size()), '\0');
  const size_t n =
      libdeflate_zlib_compress(compressor.get(), raw.data(), raw.size(), idat.data(), idat.size());
  if (n == 0)
    throw Error(
        fmt::format("encode png: deflate failed on a {}×{} image", image.width, image.height));
  idat.resize(n);
  std::string ihdr;
  append_u32(ihdr, static_cast<uint32_t>(image.width));
  append_u32(ihdr, static_cast<uint32_t>(image.height));
  ihdr +=
      std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, adaptive filters, no interlace
  std::string bytes("\x89PNG\r\n\x1a\n", 8);
  append_chunk(bytes, "IHDR", ihdr);
  if (dpi > 0.0) {  // pHYs: pixels per metre on both axes, unit 1 (metre)
    const auto per_metre = static_cast<uint32_t>(std::lround(dpi / 0.0254));
    std::string phys;
    append_u32(phys, per_metre);
    append_u32(phys, per_metre);
    phys += '\x01';
    append_chunk(bytes, "pHYs", phys);
  }
  append_chunk(bytes, "IDAT", idat);
  append_chunk(bytes, "IEND", {});
  return bytes;
}

void write_png(const std::filesystem::path& path, const Image& image) {
  write_file_atomically(path, encode_png(image));
}

}  // namespace attnviz
