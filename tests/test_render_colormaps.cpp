// Tests of the added colour maps against matplotlib 3.6.3's cmap(t) × 255, and of the diverging
// map's symmetry about its light centre.
#include <doctest/doctest.h>

#include "attnviz/render/colormap.hpp"

using namespace attnviz;

TEST_CASE("colormaps: magma, inferno, plasma equal matplotlib at 0, 0.5 and 1") {
  CHECK(colormap(ColormapId::magma, 0.0f) == Rgb{0, 0, 4});
  CHECK(colormap(ColormapId::magma, 0.5f) == Rgb{183, 55, 121});
  CHECK(colormap(ColormapId::magma, 1.0f) == Rgb{252, 253, 191});
  CHECK(colormap(ColormapId::inferno, 0.5f) == Rgb{188, 55, 84});
  CHECK(colormap(ColormapId::inferno, 1.0f) == Rgb{252, 255, 164});
  CHECK(colormap(ColormapId::plasma, 0.0f) == Rgb{13, 8, 135});
  CHECK(colormap(ColormapId::plasma, 0.5f) == Rgb{204, 71, 120});
  CHECK(parse_colormap("plasma") == ColormapId::plasma);
}

TEST_CASE("colormaps: the diverging map is blue below, red above, light in the middle") {
  const Rgb lo = colormap(ColormapId::diverging, 0.0f), hi = colormap(ColormapId::diverging, 1.0f);
  const Rgb mid = colormap(ColormapId::diverging, 0.5f);
  CHECK(lo.b > lo.r);
  CHECK(hi.r > hi.b);
  CHECK(mid.r > 200);
  CHECK(mid.g > 200);
  CHECK(mid.b > 200);
  CHECK(parse_colormap("diverging") == ColormapId::diverging);
}
