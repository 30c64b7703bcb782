// What a Canvas drew, operation by operation, in canvas pixels: the figure as vector data. The
// canvas rasterises each operation into its image as it records it; figure_file.hpp replays the
// record into an SVG or PDF (cairo), where rectangles, lines and text stay vectors and a map's
// cells are one embedded image, a pixel per cell.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "attnviz/render/colormap.hpp"
#include "attnviz/render/png.hpp"

namespace attnviz {

struct DrawRect {  // filled [x, x + w) × [y, y + h)
  int x = 0, y = 0, w = 0, h = 0;
  Rgb color;
};
struct DrawHatch {  // background, then stripes on x + y ≡ 0 (mod spacing): masked cells
  int x = 0, y = 0, w = 0, h = 0;
  Rgb background, stripe;
  int spacing = 4;
};
struct DrawLine {  // a 1-pixel line through the centres of both end pixels
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Rgb color;
};
struct DrawImage {  // pixels scaled to w × h with nearest-neighbour sampling (a cell per pixel)
  int x = 0, y = 0, w = 0, h = 0;
  std::shared_ptr<const Image> pixels;
};
// One glyph as the canvas shaped and placed it: font (index into the canvas's FontSet), glyph id of
// that font, the pen along the text from the text's start, the glyph's offsets from the pen
// (y upwards: a mark above its base), and the byte offset in DrawText::text of the first character
// it draws (HarfBuzz's cluster: a ligature's or a base-and-mark's glyphs share one).
struct DrawGlyph {
  int font = 0;
  int glyph = 0;
  float pen = 0.0f;
  float x_offset = 0.0f, y_offset = 0.0f;
  uint32_t cluster = 0;
};
struct DrawText {
  std::string text;               // what was drawn (printable, valid UTF-8)
  std::vector<DrawGlyph> glyphs;  // in visual order, left to right along the text
  float pixel_size = 12;          // as TextStyle::pixel_size
  Rgb color;
  float x = 0, y = 0;  // where the pen starts, on the baseline
  bool up = false;     // rotated 90° counter-clockwise, reading bottom to top
};

using DrawOp = std::variant<DrawRect, DrawHatch, DrawLine, DrawImage, DrawText>;

struct Drawing {
  int width = 0, height = 0;  // canvas pixels
  std::vector<DrawOp> ops;    // in drawing order, the background first
};

}  // namespace attnviz
