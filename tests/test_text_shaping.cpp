// Tests of text shaping (src/render/shaping.hpp) and its use by the canvas: Arabic joining forms
// checked against the font's own presentation-form glyphs (Unicode's FExx code points, looked up in
// the cmap by stb_truetype, not by HarfBuzz), bidi order, marks, Latin widths against
// stb_truetype's kerned advances, the CJK fallback, and escapes of control characters.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attnviz/render/canvas.hpp"
#include "render/font.hpp"
#include "render/shaping.hpp"

using namespace attnviz;
using detail::Layout;
using detail::shape_text;

namespace {

const Rgb k_white{255, 255, 255};
const Rgb k_black{0, 0, 0};

std::shared_ptr<const FontSet> dejavu() {
  static const auto fonts = FontSet::find("DejaVu Sans");
  return fonts;
}

std::vector<int> glyph_ids(const Layout& l) {
  std::vector<int> out;
  for (const auto& g : l.glyphs) out.push_back(g.glyph);
  return out;
}

std::vector<uint32_t> clusters(const Layout& l) {
  std::vector<uint32_t> out;
  for (const auto& g : l.glyphs) out.push_back(g.cluster);
  return out;
}

// The old layout, by hand: stb_truetype's advances plus its kerning of each pair (kern table).
float stbtt_width(const detail::LoadedFont& font, std::u32string_view text, float pixel_size) {
  const float scale = font.scale(pixel_size);
  float w = 0;
  int prev = -1;
  for (const char32_t cp : text) {
    const int g = font.glyph(cp);
    if (prev >= 0) w += static_cast<float>(stbtt_GetGlyphKernAdvance(&font.info, prev, g)) * scale;
    w += font.advance(g, scale);
    prev = g;
  }
  return w;
}

int ink_in(const Image& im, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += im.at(x, y) != k_white;
  return n;
}

}  // namespace

TEST_CASE("shaping: Arabic takes its joining forms and the lam-alef ligature, right to left") {
  const FontSet& fonts = *dejavu();
  const detail::LoadedFont& f = fonts.font(0);
  // سلام = seen lam alef meem. Seen joins left (initial form), lam joins both sides but lam + alef
  // form the ligature, final since lam joins right; alef never joins left, so meem is isolated.
  // Unicode's presentation forms: seen initial U+FEB3, lam-alef final U+FEFC; the isolated form is
  // the letter's own glyph (DejaVu's U+FEE1 is a copy of it under another id).
  const Layout l = shape_text(fonts, "سلام", 20.0f);
  REQUIRE(l.glyphs.size() == 3);
  for (const auto& g : l.glyphs) CHECK(g.font == 0);
  // Visual order, left to right: the last letter (meem, byte 6) first, the first (seen, byte 0)
  // last.
  CHECK(clusters(l) == std::vector<uint32_t>{6, 2, 0});
  CHECK(glyph_ids(l) == std::vector<int>{f.glyph(U'م'), f.glyph(0xFEFC), f.glyph(0xFEB3)});
  // One code point per glyph (the old layout) drew the isolated forms: seen and lam differ.
  CHECK(f.glyph(0xFEB3) != f.glyph(U'س'));
  CHECK(f.glyph(0xFEFC) != f.glyph(U'ل'));
  CHECK(l.glyphs[0].pen == 0.0f);
  CHECK(l.glyphs[1].pen > 0.0f);
  CHECK(l.width == doctest::Approx(l.glyphs[2].pen + l.glyphs[2].x_advance));
}

TEST_CASE("shaping: a Hebrew run in a Latin label sits right of it with its letters reversed") {
  const FontSet& fonts = *dejavu();
  const detail::LoadedFont& f = fonts.font(0);
  const Layout l = shape_text(fonts, "abc שלום", 20.0f);  // bytes: a b c ' ' ש(4) ל(6) ו(8) ם(10)
  REQUIRE(l.glyphs.size() == 8);
  CHECK(clusters(l) == std::vector<uint32_t>{0, 1, 2, 3, 10, 8, 6, 4});
  const std::vector<int> ids = glyph_ids(l);
  CHECK(std::vector<int>(ids.begin() + 4, ids.end()) ==
        std::vector<int>{f.glyph(U'ם'), f.glyph(U'ו'), f.glyph(U'ל'), f.glyph(U'ש')});
  for (size_t k = 1; k < l.glyphs.size(); ++k) CHECK(l.glyphs[k].pen > l.glyphs[k - 1].pen);
  // The same label starting with Hebrew: still left to right overall, the Hebrew run first.
  const Layout h = shape_text(fonts, "שלום abc", 20.0f);  // ש(0) ל(2) ו(4) ם(6) ' '(8) a(9) b c
  CHECK(clusters(h) == std::vector<uint32_t>{6, 4, 2, 0, 8, 9, 10, 11});
}

TEST_CASE("shaping: a combining mark composes with its base or is placed by an offset") {
  const FontSet& fonts = *dejavu();
  const detail::LoadedFont& f = fonts.font(0);
  // e + U+0301: DejaVu has é, and HarfBuzz composes when the font has the composite.
  const Layout e = shape_text(fonts, "e\u0301", 20.0f);
  for (const auto& g : e.glyphs) CHECK(g.cluster == 0);  // one cluster: the mark joins its base
  if (e.glyphs.size() == 1) {
    CHECK(e.glyphs[0].glyph == f.glyph(U'é'));
  } else {
    REQUIRE(e.glyphs.size() == 2);
    CHECK((e.glyphs[1].x_offset != 0.0f || e.glyphs[1].y_offset != 0.0f));
  }
  // x has no precomposed acute: two glyphs, the mark taking no width of its own beyond the base.
  const Layout x = shape_text(fonts, "x\u0301", 20.0f);
  REQUIRE(x.glyphs.size() == 2);
  CHECK(x.glyphs[1].glyph == f.glyph(0x301));
  CHECK(x.glyphs[1].x_advance == 0.0f);
  CHECK(x.width == doctest::Approx(f.advance(f.glyph(U'x'), f.scale(20.0f))));
}

TEST_CASE("shaping: Latin widths stay within a pixel of stb_truetype's kerned advances") {
  const FontSet& fonts = *dejavu();
  const detail::LoadedFont& f = fonts.font(0);
  Canvas c(10, 10, k_white, dejavu());
  for (const float px : {10.0f, 12.0f, 20.0f, 100.0f}) {
    for (const std::u32string_view s : {U"AVA", U"WAVE To", U"Attention is all you need"}) {
      std::string utf8;
      for (const char32_t cp : s) utf8 += static_cast<char>(cp);
      const float old = stbtt_width(f, s, px);
      const float now = shape_text(fonts, utf8, px).width;
      CAPTURE(utf8);
      CAPTURE(px);
      CHECK(std::abs(now - old) <= 1.0f);
      CHECK(std::abs(c.text_width(utf8, px) - old) <= 1.5f);
    }
  }
  // AVA is kerned (GPOS in HarfBuzz, the kern table in stbtt): narrower than its advances.
  const float scale = f.scale(100.0f);
  const float plain = 2 * f.advance(f.glyph(U'A'), scale) + f.advance(f.glyph(U'V'), scale);
  CHECK(shape_text(fonts, "AVA", 100.0f).width < plain - 5.0f);
}

TEST_CASE(
    "shaping: Chinese still falls back to the CJK font, Latin beside it stays in the primary") {
  const FontSet& fonts = *dejavu();
  REQUIRE(fonts.files().size() >= 2);
  const Layout l = shape_text(fonts, "注意 is", 20.0f);
  REQUIRE(l.glyphs.size() == 5);
  CHECK(l.glyphs[0].font == 1);
  CHECK(l.glyphs[1].font == 1);
  CHECK(l.glyphs[0].glyph == fonts.font(1).glyph(U'注'));
  CHECK(l.glyphs[3].font == 0);
  CHECK(l.glyphs[4].font == 0);
  CHECK(clusters(l) == std::vector<uint32_t>{0, 3, 6, 7, 8});
}

TEST_CASE("canvas: a label with control characters is shaped and recorded as its escapes") {
  Canvas c(100, 30, k_white, dejavu());
  c.draw_text(2, 20, "a\tb", {.pixel_size = 12.0f, .color = k_black});
  const auto& op = std::get<DrawText>(c.drawing().ops.back());
  CHECK(op.text == "a\\tb");
  REQUIRE(op.glyphs.size() == 4);
  CHECK(op.glyphs[1].glyph == dejavu()->font(0).glyph(U'\\'));
  CHECK(op.glyphs[3].cluster == 3);
  CHECK(c.text_width("a\tb", 12.0f) == c.text_width("a\\tb", 12.0f));
}

TEST_CASE("canvas: Arabic draws its shaped glyphs, horizontal and rotated, as wide as measured") {
  const TextStyle style{.pixel_size = 24.0f, .color = k_black};
  Canvas c(120, 40, k_white, dejavu());
  const int w = c.draw_text(10, 30, "سلام", style);
  CHECK(w == c.text_width("سلام", 24.0f));
  const auto& op = std::get<DrawText>(c.drawing().ops.back());
  CHECK(op.glyphs.size() == 3);
  CHECK(ink_in(c.image(), 10, 0, 10 + w, 40) > 40);
  CHECK(ink_in(c.image(), 10 + w + 2, 0, 120, 40) == 0);
  // Rotated: the same glyphs along -y from the baseline point, tops to the left of x.
  Canvas r(40, 120, k_white, dejavu());
  const int wr = r.draw_text(
      30, 110, "سلام", {.pixel_size = 24.0f, .color = k_black, .direction = TextDirection::up});
  CHECK(wr == w);
  CHECK(ink_in(r.image(), 0, 110 - w, 32, 110) > 40);
  CHECK(ink_in(r.image(), 0, 0, 40, 110 - w - 2) == 0);
}

TEST_CASE("canvas: a mark is drawn at its pen plus both offsets (Arabic fatha over beh)") {
  const FontSet& fonts = *dejavu();
  const detail::LoadedFont& f = fonts.font(0);
  const float size = 60.0f;
  const Layout l = shape_text(fonts, "\u0628\u064E", size);  // beh + fatha
  REQUIRE(l.glyphs.size() == 2);
  const auto& mark = l.glyphs[0];  // right to left: the mark comes first in visual order
  CHECK(mark.glyph == f.glyph(0x064E));
  CHECK(mark.x_advance == 0.0f);
  CHECK(std::abs(mark.y_offset) >= 1.0f);  // measured: -1.7 px at 20 px, GPOS mark-to-base
  // The expected ink, composed by hand from stb_truetype's bitmaps: each glyph's box at
  // (pen + x_offset, baseline − y_offset), rounded as the canvas rounds.
  const int x0 = 20, baseline = 70;
  const auto expected = [&](bool offsets) {
    std::vector<int> cover(100 * 100, 0);
    for (const auto& g : l.glyphs) {
      const auto b = f.rasterise(g.glyph, f.scale(size));
      const int ox = x0 + static_cast<int>(std::lround(g.pen + (offsets ? g.x_offset : 0.0f)));
      const int oy = baseline - (offsets ? static_cast<int>(std::lround(g.y_offset)) : 0);
      for (int j = 0; j < b->height; ++j)
        for (int i = 0; i < b->width; ++i) {
          const int x = ox + b->x0 + i, y = oy + b->y0 + j;
          if (x >= 0 && y >= 0 && x < 100 && y < 100)
            cover[static_cast<size_t>(y * 100 + x)] +=
                b->coverage[static_cast<size_t>(j * b->width + i)];
        }
    }
    return cover;
  };
  Canvas c(100, 100, k_white, dejavu());
  c.draw_text(x0, baseline, "\u0628\u064E", {.pixel_size = size, .color = k_black});
  const auto mismatches = [&](const std::vector<int>& cover) {
    int n = 0;
    for (int y = 0; y < 100; ++y)
      for (int x = 0; x < 100; ++x)
        n += (cover[static_cast<size_t>(y * 100 + x)] >= 2) != (c.image().at(x, y) != k_white);
    return n;
  };
  CHECK(mismatches(expected(true)) == 0);
  CHECK(mismatches(expected(false)) >
        20);  // the control: the mark without its offsets is elsewhere
}

TEST_CASE("canvas: a combining mark adds no width and draws above its base") {
  // Shaped "x\u0301": DejaVu has no x-acute, so the acute is its own glyph on x (no advance).
  Canvas base(60, 60, k_white, dejavu()), marked(60, 60, k_white, dejavu());
  const TextStyle style{.pixel_size = 40.0f, .color = k_black};
  base.draw_text(10, 50, "x", style);
  marked.draw_text(10, 50, "x\u0301", style);
  int top_base = 60, top_marked = 60;
  for (int y = 59; y >= 0; --y) {
    if (ink_in(base.image(), 0, y, 60, y + 1) > 0) top_base = y;
    if (ink_in(marked.image(), 0, y, 60, y + 1) > 0) top_marked = y;
  }
  CHECK(top_marked < top_base - 3);
  CHECK(base.text_width("x", 40.0f) == marked.text_width("x\u0301", 40.0f));
}

TEST_CASE("canvas: fit_text never cuts between a character and its combining mark") {
  Canvas c(10, 10, k_white, dejavu());
  const std::string label = "x\u0301x\u0301x\u0301x\u0301x\u0301x\u0301";
  for (int max = 10; max < 60; max += 3) {
    const std::string cut = c.fit_text(label, 20.0f, max);
    REQUIRE(cut.ends_with("…"));
    const std::string kept = cut.substr(0, cut.size() - std::string("…").size());
    CAPTURE(max);
    CHECK(label.starts_with(kept));
    CHECK_FALSE(label.substr(kept.size()).starts_with("\u0301"));
  }
}

TEST_CASE("canvas: fit_text puts the ellipsis where right-to-left text was cut, its left end") {
  Canvas c(10, 10, k_white, dejavu());
  const std::string hebrew = "שלוםשלוםשלוםשלוםשלוםשלום";
  const std::string cut = c.fit_text(hebrew, 20.0f, 80);
  REQUIRE(cut.ends_with("\u200F…\u200F"));
  const Layout l = shape_text(*dejavu(), cut, 20.0f);
  REQUIRE_FALSE(l.glyphs.empty());
  const uint32_t ellipsis_at = static_cast<uint32_t>(cut.size() - std::string("…\u200F").size());
  // The ellipsis left of every Hebrew letter: at the logical end of the kept text (the mark before
  // it draws nothing).
  float ellipsis_pen = -1, leftmost_letter = 1e9f;
  for (const auto& g : l.glyphs) {
    if (g.cluster == ellipsis_at) ellipsis_pen = g.pen;
    if (g.cluster < ellipsis_at - 3) leftmost_letter = std::min(leftmost_letter, g.pen);
  }
  REQUIRE(ellipsis_pen >= 0);
  CHECK(ellipsis_pen < leftmost_letter);
  // Latin keeps its ellipsis on the right, with no mark added.
  const std::string latin = c.fit_text("abcdefghijklmnopqrstuvwxyz", 20.0f, 80);
  CHECK(latin.ends_with("…"));
  CHECK(latin.find("\u200F") == std::string::npos);
  const Layout ll = shape_text(*dejavu(), latin, 20.0f);
  CHECK(ll.glyphs.back().cluster == static_cast<uint32_t>(latin.size() - std::string("…").size()));
}
