// Overlays by hand: a 2 × 2 grid of 1-pixel patches, each pixel tinted by its weight's share of the
// largest, and the terminal forms.
#include <doctest/doctest.h>

#include <cmath>

#include "attnviz/render/overlay.hpp"

using namespace attnviz;

namespace {

RgbImage four_pixels() {
  // Luminance 0.299·r + 0.587·g + 0.114·b: 100 for (100, 100, 100), 0 for black, 255 for white.
  return RgbImage{2, 2, {100, 100, 100, 0, 0, 0, 255, 255, 255, 100, 100, 100}, "RGB"};
}

}  // namespace

TEST_CASE("overlay: a patch's tint is its weight over the largest; the picture is dimmed grey") {
  const RgbImage image = four_pixels();
  OverlayFigure f{&image, 2, 2, 1, {0.4f, 0.0f, 0.2f, 0.1f}, "t", "c"};
  const auto t = overlay_positions(f);
  CHECK(t[0] == 1.0f);
  CHECK(t[1] == 0.0f);
  CHECK(t[2] == doctest::Approx(0.5f));
  CHECK(t[3] == doctest::Approx(0.25f));
  const Image tinted = tinted_image(f, ColormapId::viridis);
  // Weight 0: the grey, dimmed to ¾: black stays 0.
  CHECK(tinted.at(1, 0).r == 0);
  CHECK(tinted.at(1, 0).g == 0);
  // The largest: ½ grey (¾ · 100 = 75) + ½ the colour map's top.
  const Rgb top = colormap(ColormapId::viridis, 1.0f);
  CHECK(tinted.at(0, 0).r == std::lround(0.5 * 75 + 0.5 * top.r));
  CHECK(tinted.at(0, 0).g == std::lround(0.5 * 75 + 0.5 * top.g));
  // Half the largest on white (¾ · 255 = 191.25 → 191): ¾ of it, ¼ of the colour at 0.5.
  const Rgb mid = colormap(ColormapId::viridis, 0.5f);
  CHECK(tinted.at(0, 1).b == std::lround(0.75 * 191 + 0.25 * mid.b));
}

TEST_CASE("overlay: all-zero weights leave the picture grey; a wrong grid is refused") {
  const RgbImage image = four_pixels();
  OverlayFigure f{&image, 2, 2, 1, {0, 0, 0, 0}, "t", "c"};
  const Image tinted = tinted_image(f, ColormapId::viridis);
  CHECK(tinted.at(0, 0).r == 75);
  CHECK(tinted.at(0, 0).b == 75);
  OverlayFigure wrong{&image, 3, 2, 1, {0, 0, 0, 0, 0, 0}, "t", "c"};
  CHECK_THROWS(tinted_image(wrong, ColormapId::viridis));
}

TEST_CASE("overlay: the terminal's shades without colour, half blocks with it") {
  const RgbImage image = four_pixels();
  OverlayFigure f{&image, 2, 2, 1, {0.4f, 0.0f, 0.2f, 0.1f}, "title", "caption"};
  // "·.:-=+*#%@": t = 1 → '@', 0 → '·', 0.5 → '+' (index 5), 0.25 → ':' (index 2); two per patch.
  CHECK(terminal_overlay(f, ColormapId::viridis, 80, false) ==
        "title\n@@\u00b7\u00b7\n++::\ncaption\n");
  const std::string colour = terminal_overlay(f, ColormapId::viridis, 80, true);
  CHECK(colour.find("\u2580") != std::string::npos);
  CHECK(colour.find("\x1b[38;2;") != std::string::npos);
}

TEST_CASE("overlay grid: each cell is its own overlay, enlarged by a whole factor; blanks stay") {
  // Two heads of a 2 × 2 picture: the first looks only at the top left patch, the second only at
  // the bottom right. A 2-pixel side is enlarged 64 times (to the 128-unit cell), so each cell
  // holds 64 × 64 units of its hot patch's colour: ½ dimmed grey + ½ the colour map's top.
  const RgbImage image = four_pixels();
  OverlayFigure a{&image, 2, 2, 1, {0.5f, 0, 0, 0}, "a", ""};
  OverlayFigure b{&image, 2, 2, 1, {0, 0, 0, 0.25f}, "b", ""};
  OverlayGridFigure g{
      "title", "caption", {"layer 0", "layer 1"}, {"head 0", "head 1"}, {&a, nullptr, nullptr, &b}};
  FigureStyle style;
  style.cmap = ColormapId::viridis;
  const Canvas canvas = overlay_grid_figure(g, style);
  const Image& out = canvas.image();
  const Rgb top = colormap(ColormapId::viridis, 1.0f);
  const auto hot = [&](int grey) {
    return Rgb{uint8_t(std::lround(0.5 * grey + 0.5 * top.r)),
               uint8_t(std::lround(0.5 * grey + 0.5 * top.g)),
               uint8_t(std::lround(0.5 * grey + 0.5 * top.b))};
  };
  const auto count = [&](Rgb c) {
    int n = 0;
    for (int y = 0; y < out.height; ++y) {
      for (int x = 0; x < out.width; ++x) {
        const Rgb p = out.at(x, y);
        n += p.r == c.r && p.g == c.g && p.b == c.b;
      }
    }
    return n;
  };
  // Both hot patches are on grey 100 (dimmed to 75): two 64 × 64 blocks of that colour.
  CHECK(count(hot(75)) == 2 * 64 * 64);
  // The black patch, untinted in both drawn cells (and absent from the blank ones): 2 blocks.
  CHECK(count(Rgb{0, 0, 0}) == 2 * 64 * 64);
  OverlayGridFigure wrong{"t", "c", {"layer 0"}, {"head 0", "head 1"}, {&a}};
  CHECK_THROWS(overlay_grid_figure(wrong, style));
}
