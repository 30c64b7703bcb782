// Golden pixel checks of the figures at fixed sizes: cell colours, hatched masked cells, the colour
// bar's ends, label ink beside the right row / column, the title, the log scale, the grid.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <ostream>

#include "../src/render/figure_parts.hpp"
#include "attnviz/render/figure.hpp"
#include "print_rgb.hpp"

using namespace attnviz;

namespace {

const Rgb k_white{255, 255, 255};

int ink(const Image& im, const Rect& r) {
  int n = 0;
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) n += im.at(x, y) != k_white;
  return n;
}

// A 3 × 3 map with the last key of the first row masked.
FigureMap small_map() {
  FigureMap m;
  m.values.resize(3, 3);
  m.values << 0.6f, 0.4f, 0.0f, 0.2f, 0.3f, 0.5f, 0.1f, 0.1f, 0.8f;
  m.allowed = MaskMatrix::Ones(3, 3);
  m.allowed(0, 2) = 0;
  m.n_query = m.n_key = 3;
  m.query_labels = {"The", "cat", "猫"};
  m.key_labels = {"The", "cat", "猫"};
  return m;
}

}  // namespace

TEST_CASE("figure: cells carry the colour map's colours and masked cells are hatched") {
  const FigureMap m = small_map();
  const FigureStyle style{.cell_values = false};
  const HeatmapLayout l = heatmap_figure_layout("t", m, style);
  const Image im = heatmap_figure("t", "caption", m, style).take_image();
  REQUIRE(im.width == l.width);
  REQUIRE(im.height == l.height);
  CHECK(l.cell == 64);  // 480 / 3 capped at 64
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (m.allowed(i, j) == 0) continue;
      const int x = l.map.x + j * l.cell + l.cell / 2, y = l.map.y + i * l.cell + l.cell / 2;
      CHECK(im.at(x, y) == colormap(ColormapId::viridis, m.values(i, j)));
    }
  }
  // The masked cell holds only the hatch's two greys, never a colour of the map (not even 0's).
  int stripes = 0, ground = 0;
  for (int y = l.map.y + 2; y < l.map.y + l.cell - 2; ++y) {
    for (int x = l.map.x + 2 * l.cell + 2; x < l.map.x + 3 * l.cell - 2; ++x) {
      const Rgb c = im.at(x, y);
      stripes += c == k_hatch_stripe;
      ground += c == k_hatch_background;
      CHECK(c != colormap(ColormapId::viridis, 0.0f));
    }
  }
  CHECK(stripes > 100);
  CHECK(ground > 1000);
}

TEST_CASE("figure: colour bar ends, title, and labels beside their own row and column") {
  const FigureMap m = small_map();
  const FigureStyle style{.cmap = ColormapId::magma, .cell_values = false};
  const HeatmapLayout l = heatmap_figure_layout("layer 0 · head 0", m, style);
  const Image im = heatmap_figure("layer 0 · head 0", "c", m, style).take_image();
  const int bx = l.colorbar.x + l.colorbar.w / 2;
  CHECK(im.at(bx, l.colorbar.y) == colormap(ColormapId::magma, 1.0f));
  CHECK(im.at(bx, l.colorbar.y + l.colorbar.h - 1) == colormap(ColormapId::magma, 0.0f));
  CHECK(ink(im, {l.colorbar.x + l.colorbar.w + 6, l.colorbar.y - 6, 40, l.colorbar.h + 12}) > 50);
  CHECK(ink(im, l.title) > 100);
  for (int i = 0; i < 3; ++i) {  // query label i: ink left of the map in row i's band only
    const Rect band{l.row_labels.x, l.map.y + i * l.cell + 8, l.row_labels.w, l.cell - 16};
    CHECK(ink(im, band) > 20);
  }
  CHECK(ink(im, {l.row_labels.x, l.map.y + l.map.h + 2, l.row_labels.w, 10}) == 0);
  for (int j = 0; j < 3; ++j) {  // key label j: ink above column j's middle
    const Rect band{l.map.x + j * l.cell + 16, l.col_labels.y, l.cell - 32, l.col_labels.h};
    CHECK(ink(im, band) > 20);
  }
}

TEST_CASE("figure: cell values are printed in small maps") {
  FigureMap m = small_map();
  const FigureStyle with{.cell_values = true}, without{.cell_values = false};
  const HeatmapLayout l = heatmap_figure_layout("t", m, with);
  const Image a = heatmap_figure("t", "c", m, with).take_image(),
              b = heatmap_figure("t", "c", m, without).take_image();
  int differ = 0;
  for (int y = l.map.y; y < l.map.y + l.cell; ++y)
    for (int x = l.map.x; x < l.map.x + l.cell; ++x) differ += a.at(x, y) != b.at(x, y);
  CHECK(differ > 30);  // "0.60" drawn in cell (0, 0)
}

TEST_CASE("figure: log scale puts vmax · 1e-2 in the middle and clamps at 1e-4") {
  const FigureStyle log{.vmin = 0.0f, .vmax = 1.0f, .log = true};
  CHECK(figure_position(1.0f, log) == doctest::Approx(1.0f));
  CHECK(figure_position(1e-2f, log) == doctest::Approx(0.5f));
  CHECK(figure_position(1e-6f, log) == 0.0f);
  CHECK(figure_position(0.0f, log) == 0.0f);
  const FigureStyle lin{.vmin = 0.0f, .vmax = 0.5f};
  CHECK(figure_position(0.25f, lin) == doctest::Approx(0.5f));
}

TEST_CASE("figure: grid thumbnails sit in layer rows and head columns") {
  std::vector<Thumbnail> thumbs;
  for (int layer = 0; layer < 2; ++layer) {
    for (int head = 0; head < 3; ++head) {
      Thumbnail t{layer,
                  head,
                  Matrix::Constant(4, 4, 0.25f * (layer * 3 + head) / 5.0f * 4.0f),
                  MaskMatrix::Ones(4, 4),
                  0.0f,
                  1.0f};
      thumbs.push_back(t);
    }
  }
  const Image im = grid_figure("grid", thumbs, FigureStyle{}, 96).take_image();
  // Find thumbnail (1, 2) by scanning for its unique colour; it must lie right of and below (0, 0).
  const Rgb c00 = colormap(ColormapId::viridis, 0.0f), c12 = colormap(ColormapId::viridis, 1.0f);
  int x00 = -1, y00 = -1, x12 = -1, y12 = -1;
  for (int y = 0; y < im.height && x12 < 0; ++y) {
    for (int x = 0; x < im.width; ++x) {
      if (x00 < 0 && im.at(x, y) == c00) x00 = x, y00 = y;
      if (x12 < 0 && im.at(x, y) == c12 && x < im.width - 100) x12 = x, y12 = y;
    }
  }
  REQUIRE(x00 >= 0);
  REQUIRE(x12 >= 0);
  CHECK(x12 - x00 == 2 * (96 + 6));
  CHECK(y12 - y00 == 96 + 6);
}

TEST_CASE(
    "figure: non-finite cells and the colour range are read from the bits, subnormals included") {
  Matrix v(2, 3);
  v << 1e-40f, 0.25f, 0.5f,  // 1e-40 is subnormal: finite, and no stall or miscount
      std::nanf(""), std::numeric_limits<float>::infinity(), 0.75f;
  MaskMatrix allowed(2, 3);
  allowed << 1, 1, 1, 1, 0, 1;  // the inf sits in a masked cell: not counted
  CHECK(count_non_finite(v, allowed) == 1);
  allowed(1, 1) = 1;
  CHECK(count_non_finite(v, allowed) == 2);
  CHECK(finite_max(v, 1e-6f) == 0.75f);  // NaN and inf skipped
  CHECK(finite_max(v, 2.0f) == 2.0f);    // the floor when larger
  Matrix none(1, 2);
  none << std::nanf(""), -std::numeric_limits<float>::infinity();
  CHECK(finite_max(none, 1e-6f) == 1e-6f);
  CHECK(count_non_finite(Matrix::Constant(3, 3, 1e-39f), MaskMatrix::Ones(3, 3)) == 0);
}

TEST_CASE(
    "figure: colour-bar ticks are round: a 1-2-5 step, 3 to 6 ticks, log ticks are powers written "
    "10⁻ⁿ") {
  using attnviz::detail::linear_ticks;
  const auto same = [](const std::vector<float>& got, const std::vector<float>& want) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
  };
  same(linear_ticks(0.0f, 0.083f), {0.0f, 0.02f, 0.04f, 0.06f, 0.08f});  // not 0.021, 0.042 …
  same(linear_ticks(0.0f, 1.0f), {0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f});
  same(linear_ticks(-0.909f, 0.909f), {-0.5f, 0.0f, 0.5f});  // the diverging map: 0 at its centre
  for (const float hi : {0.0031f, 0.17f, 0.5f, 0.99f, 3.7f, 250.0f}) {
    const auto t = linear_ticks(0.0f, hi);
    CAPTURE(hi);
    CHECK(t.size() >= 3);
    CHECK(t.size() <= 6);
    CHECK(t.back() <= hi);
    const float step = t[1] - t[0];
    const float mantissa = step / std::pow(10.0f, std::floor(std::log10(step) + 1e-6f));
    CHECK((mantissa == doctest::Approx(1.0f) || mantissa == doctest::Approx(2.0f) ||
           mantissa == doctest::Approx(5.0f)));
  }
  same(attnviz::detail::log_ticks(1e-4f, 0.5f), {1e-4f, 1e-3f, 1e-2f, 0.1f});
  CHECK(attnviz::detail::format_power(1e-3f) == "10⁻³");
  CHECK(attnviz::detail::format_power(1.0f) == "10⁰");
  CHECK(attnviz::detail::format_power(0.37f) == "0.37");  // not a power: the plain value
  CHECK(attnviz::detail::format_value(2e-4f) == "2e-4");
}

TEST_CASE(
    "figure: a long caption wraps between its parts, inside the figure, and pushes the map down") {
  const FigureMap m = small_map();
  const FigureStyle style{.cell_values = false};
  std::string caption = "mask: causal";
  for (int k = 0; k < 12; ++k) caption += " · part number " + std::to_string(k) + " of the caption";
  const HeatmapLayout one = heatmap_figure_layout("t", m, style, "short");
  const HeatmapLayout many = heatmap_figure_layout("t", m, style, caption);
  REQUIRE(one.caption_lines.size() == 1);
  REQUIRE(many.caption_lines.size() > 2);
  std::string joined;
  for (const auto& line : many.caption_lines) joined += (joined.empty() ? "" : " · ") + line;
  CHECK(joined == caption);  // nothing lost, nothing added
  const Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts);
  for (const auto& line : many.caption_lines)
    CHECK(probe.text_width(line, detail::k_caption_px) <= many.width - 2 * detail::k_margin);
  CHECK(many.map.y - one.map.y == (static_cast<int>(many.caption_lines.size()) - 1) *
                                      probe.line_metrics(detail::k_caption_px).line_height);
  const Image im = heatmap_figure("t", caption, m, style).take_image();
  CHECK(im.height == many.height);
  CHECK(ink(im, {16, one.map.y - 40, many.width - 32, 30}) >
        20);  // the later caption lines are drawn
}

TEST_CASE(
    "figure: key labels of wide characters stand upright, stacked top to bottom, others turn on "
    "their side") {
  FigureMap m = small_map();
  m.key_labels = {"The", "注意", "猫"};
  const Canvas c = heatmap_figure("t", "c", m, FigureStyle{});
  const HeatmapLayout l = heatmap_figure_layout("t", m, FigureStyle{}, "c");
  int the_up = 0, zhu_upright = 0, yi_upright = 0;
  float zhu_y = 0, yi_y = 0;
  for (const auto& op : c.drawing().ops) {
    const auto* t = std::get_if<DrawText>(&op);
    if (t == nullptr || t->y > l.map.y) continue;  // the key labels are above the map
    if (t->text == "The" && t->up) ++the_up;
    if (t->text == "注" && !t->up) ++zhu_upright, zhu_y = t->y;
    if (t->text == "意" && !t->up) ++yi_upright, yi_y = t->y;
    CHECK(t->text != "注意");  // never drawn as one rotated run
  }
  CHECK(the_up == 1);
  CHECK(zhu_upright == 1);
  CHECK(yi_upright == 1);
  CHECK(zhu_y < yi_y);          // 注 above 意: read top to bottom
  CHECK(yi_y <= l.map.y - 10);  // the stack ends above the ticks
}
