// Tests of the drawing canvas: clipped rectangles, hatching, blits, and text in real fonts found
// through fontconfig (the fonts of scripts/install-deps.sh), including Chinese via the CJK
// fallback.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/render/canvas.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

namespace {

const Rgb k_white{255, 255, 255};
const Rgb k_black{0, 0, 0};

// The ink of a region: the set of (x, y) whose pixel differs from white, as one string key.
std::string ink(const Image& im, int x0, int y0, int x1, int y1) {
  std::string out;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) out += im.at(x, y) == k_white ? '.' : '#';
  return out;
}

int ink_count(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '#'));
}

}  // namespace

TEST_CASE("canvas: fill, stroke and blit are clipped to the image") {
  Canvas c(10, 8, k_white);
  c.fill_rect(-5, -5, 8, 7, Rgb{1, 2, 3});  // covers [0, 3) × [0, 2)
  CHECK(c.image().at(2, 1) == Rgb{1, 2, 3});
  CHECK(c.image().at(3, 1) == k_white);
  CHECK(c.image().at(2, 2) == k_white);
  c.stroke_rect(4, 3, 4, 4, k_black);
  CHECK(c.image().at(4, 3) == k_black);
  CHECK(c.image().at(7, 6) == k_black);
  CHECK(c.image().at(5, 4) == k_white);  // inside the outline
  Canvas small(3, 3, Rgb{9, 9, 9});
  c.blit(small.image(), 8, 6);  // only 2 × 2 of it lands
  CHECK(c.image().at(9, 7) == Rgb{9, 9, 9});
  CHECK(c.image().at(8, 6) == Rgb{9, 9, 9});
}

TEST_CASE("canvas: hatching draws stripes on x + y ≡ 0 (mod spacing) over the background") {
  Canvas c(12, 12, k_white);
  c.hatch_rect(2, 2, 8, 8, Rgb{200, 200, 200}, Rgb{100, 100, 100}, 4);
  CHECK(c.image().at(4, 4) == Rgb{100, 100, 100});
  CHECK(c.image().at(5, 4) == Rgb{200, 200, 200});
  CHECK(c.image().at(1, 3) == k_white);  // outside the rectangle stays untouched
  // Every pixel, with the rectangle hanging off the left and top edges and odd spacings: a stripe
  // exactly where x + y ≡ 0 (mod spacing), by the definition.
  for (int spacing : {2, 3, 4, 7}) {
    Canvas h(15, 11, k_white);
    const Rgb ground{200, 200, 200}, stripe{100, 100, 100};
    h.hatch_rect(-5, -3, 17, 12, ground, stripe, spacing);
    for (int y = 0; y < 11; ++y) {
      for (int x = 0; x < 15; ++x) {
        const Rgb want = x >= 12 || y >= 9 ? k_white : (x + y) % spacing == 0 ? stripe : ground;
        REQUIRE_MESSAGE(h.image().at(x, y) == want,
                        "spacing " << spacing << " at " << x << ", " << y);
      }
    }
  }
}

TEST_CASE(
    "canvas: draw_cells scales a pixel per cell to cell × cell squares, clipped, and records the "
    "image once") {
  Canvas c(5, 4, k_white);
  auto cells = std::make_shared<Image>();
  cells->width = 3, cells->height = 2;
  cells->rgb = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  c.draw_cells(-1, 0, 2,
               cells);  // cell (0, 0) is x = -1..0, cell (0, 1) x = 1..2, cell (0, 2) x = 3..4
  CHECK(c.image().at(0, 0) == Rgb{1, 2, 3});
  CHECK(c.image().at(1, 1) == Rgb{4, 5, 6});
  CHECK(c.image().at(2, 0) == Rgb{4, 5, 6});
  CHECK(c.image().at(4, 1) == Rgb{7, 8, 9});
  CHECK(c.image().at(0, 2) == Rgb{10, 11, 12});
  CHECK(c.image().at(4, 3) == Rgb{16, 17, 18});
  c.draw_cells(0, 9, 2, cells);  // below the image: nothing drawn, still recorded
  CHECK(c.image().at(0, 3) == Rgb{10, 11, 12});
  const auto& ops = c.drawing().ops;
  REQUIRE(ops.size() == 3);  // the background, then both images
  const auto* image = std::get_if<DrawImage>(&ops[1]);
  REQUIRE(image != nullptr);
  CHECK(image->pixels.get() == cells.get());  // shared, not copied
  CHECK(image->x == -1);
  CHECK(image->w == 6);
  CHECK(image->h == 4);
}

TEST_CASE("canvas: the same text drawn twice (its glyphs then cached) gives the same pixels") {
  Canvas a(120, 30, k_white), b(120, 30, k_white);
  const TextStyle style{.pixel_size = 14.0f, .color = k_black};
  a.draw_text(2, 20, "attention 注意", style);
  b.draw_text(2, 20, "attention 注意", style);
  b.fill_rect(0, 0, 120, 30, k_white);
  b.draw_text(2, 20, "attention 注意", style);  // every glyph from the cache now
  CHECK(a.image().rgb == b.image().rgb);
  CHECK(ink_count(ink(a.image(), 0, 0, 120, 30)) > 50);
}

TEST_CASE("canvas: Latin text draws ink at the baseline, width grows with the text") {
  Canvas c(200, 40, k_white);
  const int w = c.draw_text(10, 28, "Attention", {.pixel_size = 20.0f, .color = k_black});
  CHECK(w == c.text_width("Attention", 20.0f));
  CHECK(w > c.text_width("Att", 20.0f));
  CHECK(w > 40);
  const LineMetrics m = c.line_metrics(20.0f);
  CHECK(m.ascent > 10);
  CHECK(ink_count(ink(c.image(), 10, 28 - m.ascent, 10 + w, 28)) > 50);  // above the baseline
  CHECK(ink_count(ink(c.image(), 0, 0, 10, 40)) == 0);                   // nothing left of x
  CHECK(ink_count(ink(c.image(), 10 + w + 2, 0, 200, 40)) == 0);         // nothing past the end
}

TEST_CASE("canvas: rotated text runs upwards from (x, y) and glyphs lie left of x") {
  Canvas c(40, 200, k_white);
  const TextStyle up{.pixel_size = 20.0f, .color = k_black, .direction = TextDirection::up};
  const int w = c.draw_text(30, 180, "Attention", up);
  CHECK(ink_count(ink(c.image(), 0, 180 - w, 30, 180)) > 50);  // glyph tops point left
  CHECK(ink_count(ink(c.image(), 0, 0, 40, 180 - w - 2)) == 0);
  CHECK(ink_count(ink(c.image(), 0, 181, 40, 200)) == 0);
}

TEST_CASE("canvas: Chinese characters draw as distinct glyphs through the CJK fallback") {
  auto fonts = FontSet::default_set();
  REQUIRE(fonts->files().size() >= 2);  // install-deps.sh installs a CJK font
  CHECK(fonts->font_for(U'中') != 0);
  CHECK(fonts->font_for(U'A') == 0);
  std::set<std::string> shapes;
  for (const char* s : {"猫", "狗", "中"}) {
    Canvas c(40, 40, k_white, fonts);
    c.draw_text(4, 30, s, {.pixel_size = 28.0f, .color = k_black});
    shapes.insert(ink(c.image(), 0, 0, 40, 40));
  }
  CHECK(shapes.size() == 3);
  // A .notdef box is an outline with an empty middle: a real 中 has ink on its centre stroke.
  Canvas c(40, 40, k_white, fonts);
  const int w = c.draw_text(4, 30, "中", {.pixel_size = 28.0f, .color = k_black});
  CHECK(w > 20);  // a wide glyph
  CHECK(ink_count(ink(c.image(), 4 + w / 2 - 2, 8, 4 + w / 2 + 2, 28)) > 20);
}

TEST_CASE("canvas: fit_text cuts with an ellipsis, --font errors are usage errors") {
  Canvas c(10, 10, k_white);
  CHECK(c.fit_text("short", 12.0f, 500) == "short");
  const std::string cut = c.fit_text("a rather long token label", 12.0f, 60);
  CHECK(cut.ends_with("…"));
  CHECK(c.text_width(cut, 12.0f) <= 60);
  CHECK_THROWS_AS(FontSet::find("/nonexistent/font.ttf"), Error);
  try {
    FontSet::find("No Such Font Family 12345");
    FAIL("expected a usage error");
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
  }
  CHECK(FontSet::find("DejaVu Sans")->files().front().filename() == "DejaVuSans.ttf");
}

namespace {
// A copy of a TrueType font whose loca entry for glyph 3 points far past the glyf table (a whole
// file, but glyph data stb_truetype would read outside the buffer).
std::string with_glyph_offset_past_glyf(std::string font) {
  const auto u16 = [&](size_t at) {
    return size_t(uint8_t(font[at])) << 8 | uint8_t(font[at + 1]);
  };
  const auto u32 = [&](size_t at) { return u16(at) << 16 | u16(at + 2); };
  size_t loca = 0, head = 0;
  for (size_t i = 0; i < u16(4); ++i) {
    const std::string tag = font.substr(12 + 16 * i, 4);
    if (tag == "loca") loca = u32(12 + 16 * i + 8);
    if (tag == "head") head = u32(12 + 16 * i + 8);
  }
  REQUIRE((loca != 0 && head != 0));
  const bool long_offsets = u16(head + 50) != 0;
  const size_t at = loca + (long_offsets ? 4 : 2) * 3;
  for (size_t k = 0; k < (long_offsets ? 4u : 2u); ++k) font[at + k] = '\xff';
  return font;
}
}  // namespace

TEST_CASE(
    "canvas: a truncated or garbage font file is an Error naming it, not a read past the buffer") {
  const std::filesystem::path real = FontSet::find("DejaVu Sans")->files().front();
  const std::string bytes = attnviz::test::slurp(real);
  REQUIRE(bytes.size() > 4096);
  attnviz::test::TempDir dir;
  struct Case {
    std::string name, content, message;
  };
  const Case cases[] = {
      {"truncated.ttf", bytes.substr(0, 4096), "runs past the end of the file"},
      {"half.ttf", bytes.substr(0, bytes.size() / 2), "runs past the end of the file"},
      {"directory-only.ttf", bytes.substr(0, 20), "the directory of"},
      {"garbage.ttf", std::string(64, '\x01'), "not a usable TrueType/OpenType font"},
      {"tiny.ttf", "ttf", "3 bytes, too short for a font header"},
      {"bad-loca.ttf", with_glyph_offset_past_glyf(bytes), "glyph 3 starts past the end of glyf"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    std::ofstream(dir / c.name, std::ios::binary) << c.content;
    try {
      (void)FontSet::find((dir / c.name).string());
      FAIL("the bad font was accepted");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK_MESSAGE(msg.find((dir / c.name).string()) != std::string::npos, msg);
      CHECK_MESSAGE(msg.find(c.message) != std::string::npos, msg);
      CHECK(e.exit_code() == k_exit_runtime);
    }
  }
}
