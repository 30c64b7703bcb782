// --panel: head names parsed and checked against the model's maps, and the panel figure drawing its
// heads on one colour scale.
#include <doctest/doctest.h>

#include <filesystem>

#include "attnviz/core/error.hpp"
#include "attnviz/event/panel.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/figure.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::run_attnviz;

TEST_CASE("panel: names parse to heads and back, malformed and repeated ones are refused") {
  const auto heads = parse_panel("L3H5,L0H1,decoder.L1H0.cross,encoder.L2H3.self");
  REQUIRE(heads.size() == 4);
  CHECK(heads[0].layer == 3);
  CHECK(heads[0].head == 5);
  CHECK(heads[0].site == Site::self);
  CHECK(heads[2].stack == "decoder");
  CHECK(heads[2].site == Site::cross);
  CHECK(panel_name(heads[2]) == "decoder.L1H0.cross");
  CHECK(panel_name(heads[3]) == "encoder.L2H3");
  for (const char* bad : {"", "L3", "H5", "L3H5,", "l3h5", "L3H5.both", "L-1H0", "L3H5 L4H0"}) {
    CAPTURE(bad);
    int code = 0;
    CHECK(contains(error_of([&] { parse_panel(bad); }, &code),
                   "is not a head (write L<layer>H<head>"));
    CHECK(code == 2);
  }
  CHECK(contains(error_of([] { parse_panel("L0H0,L1H1,L0H0"); }), "L0H0 is named twice"));
  CHECK(contains(error_of([] {
                   parse_panel("L0H0,L0H1,L0H2,L0H3,L1H0,L1H1,L1H2,L1H3,L2H0,L2H1,L2H2,L2H3,L3H0");
                 }),
                 "13 heads; a panel shows at most 12"));
  MapList list;
  list.maps = {HeadId{"", 0, Site::self, 0}, HeadId{"", 1, Site::self, 0}};
  list.n_heads = 4;
  check_panel(parse_panel("L1H3,L0H0"), list);
  CHECK(contains(error_of([&] { check_panel(parse_panel("L2H0"), list); }),
                 "--panel: L2H0 names a map this model does not make on this input (its maps: "
                 "layer0.self, layer1.self)"));
  CHECK(contains(error_of([&] { check_panel(parse_panel("L0H4"), list); }),
                 "names head 4, but the maps have 4 heads"));
  CHECK(contains(error_of([&] { check_panel(parse_panel("L0H0.cross"), list); }),
                 "L0H0.cross names a map"));
}

TEST_CASE("panel: its heads share one colour scale") {
  // Two 4 × 4 maps, one all 0.25, one all 1: on one scale [0, 1] the first is 0.25's colour, not
  // the top.
  FigureMap quarter;
  quarter.values = Matrix::Constant(4, 4, 0.25f);
  quarter.allowed = MaskMatrix::Ones(4, 4);
  quarter.n_query = quarter.n_key = 4;
  quarter.query_labels = quarter.key_labels = {"a", "b", "c", "d"};
  FigureMap one = quarter;
  one.values.setOnes();
  FigureStyle style;
  style.cell_values = false;
  const Image im = panel_figure("t", "c", {{"L0H0", quarter}, {"L0H1", one}}, style).take_image();
  const Rgb low = colormap(style.cmap, 0.25f), top = colormap(style.cmap, 1.0f);
  long lows = 0, tops = 0;
  for (int y = 0; y < im.height; ++y) {
    for (int x = 0; x < im.width; ++x) {
      const Rgb c = im.at(x, y);
      lows += c == low;
      tops += c == top;
    }
  }
  // Each map is 4 cells of 64 px (capped) a side: 256² pixels; the bar adds a few rows of each.
  CHECK(lows >= 256 * 256);
  CHECK(tops >= 256 * 256);
  CHECK(lows < 256 * 256 + 2000);
  CHECK_THROWS_AS(panel_figure("t", "c", {}, style).take_image(), Error);
}

TEST_CASE(
    "panel: run --png --panel writes panel.png beside the selected heads' figures, and refuses "
    "misuse") {
  attnviz::test::TempDir dir;
  const std::string m =
      "run -m tests/fixtures/planted/planted-heads --probe repeat:6 --table none --no-heatmap";
  const auto r =
      run_attnviz(m + " --layer 0 --head 0 --panel L1H0,L0H1 --png " + (dir / "f").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(dir / "f" / "panel.png"));
  CHECK(std::filesystem::exists(dir / "f" / "layer0.self.head0.png"));
  CHECK_FALSE(std::filesystem::exists(dir / "f" / "layer1.self.head0.png"));  // in the panel only
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {m + " --panel L0H0",
       "--panel draws into the --png folder (heatmaps) or the --overlay folder (on the image): "
       "give --png DIR or --overlay DIR too"},
      {m + " --panel L5H0 --png " + (dir / "g").string(),
       "--panel: L5H0 names a map this model does not make"},
      {m + " --panel L0H7 --png " + (dir / "g").string(),
       "names head 7, but the maps have 4 heads"},
      {m + " --panel 3,5 --png " + (dir / "g").string(), "'3' is not a head"},
      {"rollout -m tests/fixtures/planted/planted-heads --probe repeat:6 --panel L0H0 --png " +
           (dir / "g").string(),
       "--panel: rollout has one map per layer"},
  };
  for (const auto& c : cases) {
    const auto e = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(e.exit_code == 2);
    CHECK_MESSAGE(contains(e.err, c.message), e.err);
    CHECK_FALSE(std::filesystem::exists(dir / "g"));
  }
}
