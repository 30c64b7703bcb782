// Text shaping: bidi runs in visual order (ICU ubidi, paragraph left to right), pieces of one font
// and one script, each shaped by HarfBuzz with the face stbtt rasterises.
#include "shaping.hpp"

#include <fmt/format.h>
#include <hb.h>
#include <unicode/ubidi.h>
#include <unicode/utf16.h>

#include <algorithm>
#include <memory>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/canvas.hpp"
#include "font.hpp"

namespace attnviz::detail {
namespace {

// A stretch of code points [begin, end) read in one direction.
struct Run {
  size_t begin = 0, end = 0;
  bool rtl = false;
};

// Below U+0590 no character is right-to-left (Hebrew starts there) nor a bidi control, so a
// label of them is one left-to-right run and ubidi is not needed.
bool maybe_bidi(const std::vector<char32_t>& cps) {
  for (const char32_t cp : cps) {
    if (cp >= 0x590) return true;
  }
  return false;
}

struct BidiDeleter {
  void operator()(UBiDi* b) const { ubidi_close(b); }
};

// The runs of the Unicode bidi algorithm (UAX #9) in visual order, left to right.
std::vector<Run> visual_runs(const std::vector<char32_t>& cps) {
  if (!maybe_bidi(cps)) return {Run{0, cps.size(), false}};
  std::vector<UChar> u16;
  std::vector<size_t> cp_at;  // code point index of each UTF-16 unit, then the count
  for (size_t k = 0; k < cps.size(); ++k) {
    UChar units[2];
    int32_t n = 0;
    U16_APPEND_UNSAFE(units, n, static_cast<UChar32>(cps[k]));  // decode_utf8 gives no surrogates
    for (int32_t u = 0; u < n; ++u) u16.push_back(units[u]), cp_at.push_back(k);
  }
  cp_at.push_back(cps.size());
  UErrorCode status = U_ZERO_ERROR;
  const std::unique_ptr<UBiDi, BidiDeleter> bidi(
      ubidi_openSized(static_cast<int32_t>(u16.size()), 0, &status));
  ubidi_setPara(bidi.get(), u16.data(), static_cast<int32_t>(u16.size()), UBIDI_LTR, nullptr,
                &status);
  const int32_t n_runs = ubidi_countRuns(bidi.get(), &status);
  if (U_FAILURE(status))
    throw Error(fmt::format("text layout: ICU's bidi algorithm failed: {}", u_errorName(status)));
  std::vector<Run> runs;
  for (int32_t r = 0; r < n_runs; ++r) {
    int32_t start = 0, length = 0;
    const UBiDiDirection dir = ubidi_getVisualRun(bidi.get(), r, &start, &length);
    runs.push_back({cp_at[static_cast<size_t>(start)], cp_at[static_cast<size_t>(start + length)],
                    dir == UBIDI_RTL});
  }
  return runs;
}

bool is_real_script(hb_script_t s) {
  return s != HB_SCRIPT_COMMON && s != HB_SCRIPT_INHERITED && s != HB_SCRIPT_UNKNOWN;
}

// A run cut where the font or the script changes, in logical order. Characters of no script of
// their own (spaces, digits, punctuation: Common; marks, ZWJ: Inherited) take the script before
// them (the first after them at the run's start); marks stay in their base's font when it has
// them, so a base and its accents are shaped together.
struct Piece {
  size_t begin = 0, end = 0;
  int font = 0;
  hb_script_t script = HB_SCRIPT_COMMON;
};
std::vector<Piece> pieces_of(const FontSet& fonts, const std::vector<char32_t>& cps,
                             const Run& run) {
  hb_unicode_funcs_t* ucd = hb_unicode_funcs_get_default();
  hb_script_t script = HB_SCRIPT_COMMON;
  for (size_t k = run.begin; k < run.end && !is_real_script(script); ++k)
    script = hb_unicode_script(ucd, cps[k]);
  if (!is_real_script(script)) script = HB_SCRIPT_COMMON;
  std::vector<Piece> out;
  for (size_t k = run.begin; k < run.end; ++k) {
    const hb_script_t own = hb_unicode_script(ucd, cps[k]);
    if (is_real_script(own)) script = own;
    int font = fonts.font_for(cps[k]);
    if (own == HB_SCRIPT_INHERITED && !out.empty() &&
        fonts.font(out.back().font).glyph(cps[k]) != 0) {
      font = out.back().font;
    }
    if (out.empty() || out.back().font != font || out.back().script != script) {
      out.push_back({k, k + 1, font, script});
    } else {
      out.back().end = k + 1;
    }
  }
  return out;
}

// The language a piece is shaped as, from its script alone (a label says no more): Chinese for Han,
// as the CJK fallback is chosen for lang=zh; otherwise undetermined, which gives the font's default
// forms for the script. Never the process's locale, so a figure does not change with $LANG.
hb_language_t language_for(hb_script_t script) {
  static const hb_language_t zh = hb_language_from_string("zh", -1);
  static const hb_language_t und = hb_language_from_string("und", -1);
  return script == HB_SCRIPT_HAN ? zh : und;
}

struct BufferDeleter {
  void operator()(hb_buffer_t* b) const { hb_buffer_destroy(b); }
};

}  // namespace

Layout shape_text(const FontSet& fonts, std::string_view utf8, float pixel_size) {
  Layout out;
  const std::vector<char32_t> cps = decode_utf8(utf8);
  if (cps.empty()) return out;
  std::vector<uint32_t> byte_at;  // byte offset of each code point (utf8 is valid), then the size
  for (size_t k = 0; k < utf8.size(); ++k) {
    if ((static_cast<unsigned char>(utf8[k]) & 0xC0) != 0x80)
      byte_at.push_back(static_cast<uint32_t>(k));
  }
  if (byte_at.size() != cps.size()) throw Error("text layout: the text is not valid UTF-8");
  byte_at.push_back(static_cast<uint32_t>(utf8.size()));
  // One buffer per thread, reused: figures lay out thousands of labels.
  thread_local const std::unique_ptr<hb_buffer_t, BufferDeleter> buffer(hb_buffer_create());
  float pen = 0.0f;
  for (const Run& run : visual_runs(cps)) {
    std::vector<Piece> pieces = pieces_of(fonts, cps, run);
    if (run.rtl)
      std::reverse(pieces.begin(), pieces.end());  // a right-to-left run's last piece is leftmost
    for (const Piece& piece : pieces) {
      hb_buffer_t* b = buffer.get();
      hb_buffer_clear_contents(b);
      // The whole text goes in, the piece as the item: HarfBuzz sees the characters around it
      // (an Arabic letter's joining neighbour in another font), and clusters are offsets in utf8.
      hb_buffer_add_utf8(b, utf8.data(), static_cast<int>(utf8.size()), byte_at[piece.begin],
                         static_cast<int>(byte_at[piece.end] - byte_at[piece.begin]));
      hb_buffer_set_direction(b, run.rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
      hb_buffer_set_script(b, piece.script);
      hb_buffer_set_language(b, language_for(piece.script));
      const LoadedFont& font = fonts.font(piece.font);
      hb_shape(font.shaper.get(), b, nullptr, 0);
      unsigned n = 0;
      const hb_glyph_info_t* info = hb_buffer_get_glyph_infos(b, &n);
      const hb_glyph_position_t* pos = hb_buffer_get_glyph_positions(b, nullptr);
      const float scale = font.scale(pixel_size);  // pixels per font unit
      for (unsigned g = 0; g < n; ++g) {
        PlacedGlyph p;
        p.font = piece.font;
        p.glyph = static_cast<int>(info[g].codepoint);
        p.pen = pen;
        p.x_advance = static_cast<float>(pos[g].x_advance) * scale;
        p.x_offset = static_cast<float>(pos[g].x_offset) * scale;
        p.y_offset = static_cast<float>(pos[g].y_offset) * scale;
        p.cluster = info[g].cluster;
        out.glyphs.push_back(p);
        pen += p.x_advance;
      }
    }
  }
  out.width = pen;
  return out;
}

}  // namespace attnviz::detail
