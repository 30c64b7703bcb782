// Tests of the colour maps against matplotlib 3.6.3 (values read off cm.viridis(t), × 255,
// rounded), clamping, NaN and name parsing.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <set>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/render/colormap.hpp"
#include "print_rgb.hpp"

using namespace attnviz;

TEST_CASE("colormap: viridis endpoints and samples equal matplotlib's") {
  // /usr/bin/python3 -c "from matplotlib import cm; print([round(x*255) for x in
  // cm.viridis(t)[:3]])"
  CHECK(colormap(ColormapId::viridis, 0.0f) == Rgb{68, 1, 84});
  CHECK(colormap(ColormapId::viridis, 1.0f) == Rgb{253, 231, 37});
  CHECK(colormap(ColormapId::viridis, 0.25f) == Rgb{59, 82, 139});
  CHECK(colormap(ColormapId::viridis, 0.5f) == Rgb{33, 145, 140});
  CHECK(colormap(ColormapId::viridis, 0.7f) == Rgb{68, 191, 112});
  CHECK(colormap(ColormapId::viridis, 0.999f) == Rgb{253, 231, 37});
}

TEST_CASE("colormap: out-of-range t is clamped and NaN maps to the low end") {
  const Rgb low{68, 1, 84}, high{253, 231, 37};
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(colormap(ColormapId::viridis, -0.5f) == low);
  CHECK(colormap(ColormapId::viridis, -inf) == low);
  CHECK(colormap(ColormapId::viridis, 1.5f) == high);
  CHECK(colormap(ColormapId::viridis, inf) == high);
  CHECK(colormap(ColormapId::viridis, std::nanf("")) == low);
}

TEST_CASE("colormap: colormap_position normalises, clamps and survives degenerate ranges") {
  CHECK(colormap_position(0.5f, 0.0f, 1.0f) == doctest::Approx(0.5f));
  CHECK(colormap_position(5.0f, 0.0f, 10.0f) == doctest::Approx(0.5f));
  CHECK(colormap_position(-3.0f, -4.0f, 0.0f) == doctest::Approx(0.25f));
  CHECK(colormap_position(-1.0f, 0.0f, 1.0f) == 0.0f);
  CHECK(colormap_position(2.0f, 0.0f, 1.0f) == 1.0f);
  CHECK(colormap_position(std::nanf(""), 0.0f, 1.0f) == 0.0f);
  CHECK(colormap_position(1.0f, 1.0f, 1.0f) == 0.0f);  // empty range
  CHECK(colormap_position(0.5f, 1.0f, 0.0f) == 0.0f);  // inverted range
}

TEST_CASE("colormap: names parse, and every table has a unique name") {
  CHECK(parse_colormap("viridis") == ColormapId::viridis);
  std::set<std::string> names;
  const auto tables = detail::colormap_tables();
  for (size_t k = 0; k < tables.size(); ++k) {
    CHECK(names.insert(std::string(tables[k].name)).second);
    CHECK(parse_colormap(tables[k].name) == static_cast<ColormapId>(k));
  }
  try {
    parse_colormap("jet");
    FAIL("jet should be rejected");
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
    CHECK(std::string(e.what()).find("viridis") != std::string::npos);
  }
}
