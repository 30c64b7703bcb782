// PNG heatmaps: one pixel block per cell through a colour map, nearest-neighbour upscaled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/render/colormap.hpp"

namespace attnviz {

// An 8-bit RGB image, row-major, 3 bytes per pixel.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;
  Rgb at(int x, int y) const;
  void set(int x, int y, Rgb c);
};

// values [rows, cols] → image: every cell becomes a cell_px × cell_px square (cell_px chosen so the
// short side is at least min_side pixels, nearest-neighbour), masked cells mid-grey (128,128,128).
Image heatmap_image(const Matrix& values, const Mask& mask, ColormapId cmap, float vmin, float vmax,
                    int min_side = 256);
// PNG bytes: 8-bit RGB, adaptive row filters, deflated by libdeflate; dpi > 0 adds a pHYs chunk
// stating the resolution.
std::string encode_png(const Image& image, double dpi = 0.0);
// encode_png + write_file_atomically.
void write_png(const std::filesystem::path& path, const Image& image);

}  // namespace attnviz
