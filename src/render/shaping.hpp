// Internal: text shaping for canvas.cpp — a label split into bidi runs (ICU's ubidi) in visual
// order, each run into pieces of one font (FontSet::font_for) and one script, each piece shaped by
// HarfBuzz (GSUB forms and ligatures, GPOS kerning and mark positions).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace attnviz {
class FontSet;
}

namespace attnviz::detail {

// One shaped glyph, in pixels at the size asked for. The glyph's origin is at
// (pen + x_offset, baseline − y_offset): y_offset is upwards, as HarfBuzz gives it.
struct PlacedGlyph {
  int font = 0;      // index into the FontSet
  int glyph = 0;     // glyph id of that font
  float pen = 0.0f;  // the pen along the baseline before this glyph, from the text's start
  float x_advance = 0.0f;
  float x_offset = 0.0f, y_offset = 0.0f;
  uint32_t cluster = 0;  // byte offset in the text of the first character this glyph draws
};

struct Layout {
  std::vector<PlacedGlyph> glyphs;  // visual order: left to right
  float width = 0.0f;               // the sum of the advances
};

// Lays out `utf8` (valid UTF-8, e.g. printable_text's) at pixel_size (ascent-to-descent height, as
// stbtt scales): paragraph direction left to right; positions are HarfBuzz's in font units times
// stbtt_ScaleForPixelHeight of the glyph's font, so widths agree with the rasteriser's metrics.
Layout shape_text(const FontSet& fonts, std::string_view utf8, float pixel_size);

}  // namespace attnviz::detail
