// A drawing surface over an Image: filled / outlined / hatched rectangles, lines, blits, and UTF-8
// text in a real font found through fontconfig, with a CJK fallback per code point, shaped by
// HarfBuzz in bidi order (ICU) and rasterised by stb_truetype.
// Every operation is also recorded (drawing.hpp), so the same figure can be written as SVG or PDF.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/render/colormap.hpp"
#include "attnviz/render/drawing.hpp"
#include "attnviz/render/png.hpp"

namespace attnviz {

namespace detail {
struct LoadedFont;  // a font file's bytes and its stbtt_fontinfo (src/render/font.cpp)
}

// Vertical extents of a line of text at one pixel size, in pixels (ascent above the baseline,
// descent below it, both >= 0; line_height = ascent + descent + line gap).
struct LineMetrics {
  int ascent = 0;
  int descent = 0;
  int line_height = 0;
};

// The fonts text is drawn with: a primary font, then fallbacks tried in order for each code point
// the primary lacks (a CJK font, so Chinese tokens render as characters, never as boxes).
// Immutable once built, so one FontSet can be shared by canvases on several threads.
class FontSet {
 public:
  // spec "" → fontconfig's "sans-serif"; a path to a .ttf/.otf/.ttc file; or a fontconfig name
  // ("DejaVu Sans", "Noto Sans CJK SC:bold"). A CJK font (FcFontSort with lang=zh, the first that
  // covers U+4E2D) is appended as a fallback. Throws usage Error when spec names no usable font,
  // Error when fontconfig finds no font at all.
  static std::shared_ptr<const FontSet> find(const std::string& spec = "");
  // The default set (find("")), loaded once per process and then shared.
  static std::shared_ptr<const FontSet> default_set();

  FontSet(const FontSet&) = delete;
  FontSet& operator=(const FontSet&) = delete;
  ~FontSet();

  // The font files in use, primary first (for --verbose output and tests).
  std::vector<std::filesystem::path> files() const;
  // Index into files() of the font that draws cp: the first that has a glyph for it, else 0
  // (which then draws its .notdef box).
  int font_for(char32_t cp) const;
  const detail::LoadedFont& font(int index) const;

  // Internal: use find / default_set.
  explicit FontSet(std::vector<std::unique_ptr<detail::LoadedFont>> fonts);

 private:
  std::vector<std::unique_ptr<detail::LoadedFont>> fonts_;
};

// Where (x, y) of draw_text sits along the text: at its start, middle or end.
enum class TextAlign { start, center, end };
// horizontal: reads left to right. up: rotated 90° counter-clockwise, reads bottom to top (the
// baseline is then the vertical line x = x, glyph tops point left, the text runs towards -y).
enum class TextDirection { horizontal, up };

struct TextStyle {
  float pixel_size = 12.0f;  // font size in pixels (the ascent-to-descent height, as stbtt scales)
  Rgb color{0, 0, 0};
  TextAlign align = TextAlign::start;
  TextDirection direction = TextDirection::horizontal;
};

// Figures are laid out in units of 1/100 inch (a unit is a pixel of the PNG at the default 100 dpi,
// and 0.72 pt of an SVG or PDF page).
inline constexpr double k_units_per_inch = 100.0;

// How a canvas's units become the image's pixels, and how large its text is.
struct CanvasScale {
  float pixels = 1.0f;  // image pixels per unit: dpi / k_units_per_inch
  float text = 1.0f;  // every text size × this (--font-size), the layout following through metrics
};

// An RGB canvas. Coordinates are units (CanvasScale; at the default scale, pixels), (0, 0) top
// left; everything drawn is clipped to the image, so callers never need to check bounds. Text is
// anti-aliased by blending over what is below. Each call is rasterised at the scale's pixels per
// unit and recorded, in units, in drawing() (a figure is its canvas: PNG from image(), SVG and PDF
// from drawing()).
class Canvas {
 public:
  // A width × height canvas filled with `background`; fonts = nullptr means FontSet::default_set()
  // (loaded on the first text call, so canvases without text never touch fontconfig).
  Canvas(int width, int height, Rgb background = {255, 255, 255},
         std::shared_ptr<const FontSet> fonts = nullptr, CanvasScale scale = {});

  int width() const { return drawing_.width; }    // units
  int height() const { return drawing_.height; }  // units
  const CanvasScale& scale() const { return scale_; }
  const Image& image() const { return image_; }
  Image take_image() { return std::move(image_); }  // the image is empty afterwards
  const Drawing& drawing() const { return drawing_; }
  const std::shared_ptr<const FontSet>& font_set() const;  // the fonts drawing()'s glyphs index

  void fill_rect(int x, int y, int w, int h, Rgb color);
  // The outline of [x, x + w) × [y, y + h), `thickness` pixels inside that rectangle.
  void stroke_rect(int x, int y, int w, int h, Rgb color, int thickness = 1);
  // Diagonal stripes (lower left to upper right) `spacing` pixels apart over `background`: the
  // drawing of masked cells, so they never look like a colour of the map.
  void hatch_rect(int x, int y, int w, int h, Rgb background, Rgb stripe, int spacing = 4);
  // A 1-pixel line (Bresenham), both ends included.
  void draw_line(int x0, int y0, int x1, int y1, Rgb color);
  // Copies src with its top-left corner at (x, y).
  void blit(const Image& src, int x, int y);
  // A map's cells: pixel (j, i) of `cells` fills [x + j·cell, +cell) × [y + i·cell, +cell).
  // Recorded as one image at a pixel per cell, so vector files keep the cells exact at any zoom.
  void draw_cells(int x, int y, int cell, std::shared_ptr<const Image> cells);
  // A vertical colour bar over [x, x + w) × [y, y + h): cmap at 1 on its top row down to 0 on its
  // bottom row, one colour per unit row. Drawn by draw_cells as one image: hundreds of touching
  // rectangles would show hairline seams in PDF and SVG viewers.
  void draw_colour_bar(int x, int y, int w, int h, ColormapId cmap);

  // Draws UTF-8 text with its baseline through (x, baseline_y), placed by style.align along the
  // text direction; invalid UTF-8 bytes draw as U+FFFD, control characters as escapes. The text is
  // shaped (joining forms, ligatures, marks, kerning) and its bidi runs put in visual order within
  // a left-to-right line. Returns the advance width in pixels.
  int draw_text(int x, int baseline_y, std::string_view utf8, const TextStyle& style);
  // The advance width draw_text would return, without drawing.
  int text_width(std::string_view utf8, float pixel_size) const;
  // Ascent / descent / line height of the primary font at pixel_size.
  LineMetrics line_metrics(float pixel_size) const;
  // The longest prefix of utf8 that fits in max_width pixels, with "…" appended when cut; never
  // cut between a character and its marks (the zero-width code points after it).
  std::string fit_text(std::string_view utf8, float pixel_size, int max_width) const;

  const FontSet& fonts() const;

 private:
  void raster_fill(int x, int y, int w, int h, Rgb color);  // fill_rect without recording
  int px(double units) const;                               // units → image pixels (rounded)
  float text_size(float pixel_size) const { return pixel_size * scale_.text; }  // in units

  Image image_;
  Drawing drawing_;
  CanvasScale scale_;
  mutable std::shared_ptr<const FontSet> fonts_;
};

}  // namespace attnviz
