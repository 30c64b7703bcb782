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
