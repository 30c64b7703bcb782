// NaN and ±inf attention weights: found block by block, reported on stderr by every command, and
// drawn distinctly ('!' in the terminal, magenta in figures), never as a value of the colour map.
#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/io/npy.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/pooled_map.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/render/terminal.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

// A 2-head, d_model 8 lone attention module and 4 input rows whose last one is NaN: under a causal
// mask only query row 3 sees the NaN key, so exactly that row of every map is NaN.
void make_nan_inputs(const TempDir& dir) {
  REQUIRE(run_attnviz("init -o " + (dir / "m").string() + " --d-model 8 --heads 2").exit_code == 0);
  Matrix x(4, 8);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) x(i, j) = i == 3 ? k_nan : 0.1f * static_cast<float>(i + j);
  }
  write_npy(dir / "x.npy", x);
}

std::string nan_run(const TempDir& dir, const std::string& command, const std::string& extra) {
  return command + " -m " + (dir / "m").string() + " --embeddings " + (dir / "x.npy").string() +
         " --causal " + extra;
}

}  // namespace

TEST_CASE("non-finite: the monitor names the rows and counts the cells of each map") {
  MapInfo info;
  info.n_query = 3, info.n_key = 2;
  Matrix probs(3, 2);
  probs << 1, 0, k_nan, k_nan, 0.5f, std::numeric_limits<float>::infinity();
  NonFiniteMonitor m;
  m.begin_map(info);
  m.on_block(AttentionBlock(info, 0, 3, probs, probs));
  m.end_map(info);
  REQUIRE(m.findings().size() == 1);
  CHECK(m.findings()[0].rows == std::vector<int>{1, 2});
  CHECK(m.findings()[0].worst == 3.0);
  CHECK(contains(m.warnings(), "NaN or Inf in query rows 1-2 (2 of 3): 3 cells"));
  NonFiniteMonitor clean;
  clean.begin_map(info);
  clean.on_block(AttentionBlock(info, 0, 1, probs.topRows(1), probs.topRows(1)));
  clean.end_map(info);
  CHECK(clean.warnings().empty());
}

TEST_CASE("non-finite: a pooled cell holding a NaN stays NaN, whatever else it holds") {
  const PoolGrid g = PoolGrid::for_map(4, 4, 2);  // 2 × 2 tokens per cell
  PooledMap map(g);
  Matrix probs = Matrix::Constant(4, 4, 0.25f);
  probs(1, 0) = k_nan;  // cell (0, 0), not its first pair
  map.add(0, probs);
  const Matrix v = map.values(PoolMode::max, CountMatrix());
  CHECK(std::isnan(v(0, 0)));
  CHECK(v(1, 1) == 0.25f);
  CHECK(std::isnan(map.coarsened(2).values(PoolMode::max, CountMatrix())(0, 0)));
}

TEST_CASE("non-finite: run warns and draws NaN as '!', never blank") {
  TempDir dir;
  make_nan_inputs(dir);
  const auto r = run_attnviz(nan_run(dir, "run", "--head 0 --table none --color=never"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(
      r.err,
      "attnviz: warning: layer 0 · self · head 0: NaN or Inf in query row 3 (1 of 4): 4 cells"));
  // P·V multiplies the NaN value row by the 0 weights of rows 0-2 too (0 · NaN = NaN, in PyTorch as
  // here).
  CHECK(contains(r.err, "the final hidden states hold 32 NaN or inf values of 32"));
  CHECK(contains(r.out, "\n3 !!!!!!!!!!!!!!!!\n"));  // row 3: four keys of 4 columns each
  CHECK(contains(r.out, "  ! NaN/inf\n"));           // the legend explains the mark
  CHECK_FALSE(contains(r.out, "nan]"));              // the colour range is finite
}

TEST_CASE("non-finite: stats and check report NaN on stderr too") {
  TempDir dir;
  make_nan_inputs(dir);
  const auto s = run_attnviz(nan_run(dir, "stats", ""));
  CHECK(contains(s.err,
                 "attnviz: warning: layer 0 · self · head 1: NaN or Inf in query row 3 (1 of 4)"));
  const auto c = run_attnviz(nan_run(dir, "check", ""));
  CHECK(c.exit_code == 3);
  // A cell counts once, though its score and its weight are both NaN: 4 cells in row 3.
  CHECK(contains(c.out + c.err, "NaN or Inf in query row 3 (1 of 4): 4 cells"));
}

TEST_CASE("non-finite: figures draw NaN cells magenta, keep a finite colour range and say so") {
  TempDir dir;
  make_nan_inputs(dir);
  const auto r = run_attnviz(
      nan_run(dir, "run", "--no-heatmap --table none --png-raw --png " + (dir / "f").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  int w = 0, h = 0, n = 0;
  unsigned char* raw = stbi_load((dir / "f" / "layer0.self.head0.raw.png").c_str(), &w, &h, &n, 3);
  REQUIRE(raw != nullptr);
  // The raw image is 4 × 4 cells: the bottom row (query 3) is magenta, the top-left cell is not.
  const auto pixel = [&](int x, int y) {
    return Rgb{raw[(y * w + x) * 3], raw[(y * w + x) * 3 + 1], raw[(y * w + x) * 3 + 2]};
  };
  CHECK(pixel(w / 8, h - 1) == k_non_finite_rgb);
  CHECK(pixel(w - 1, h - 1) == k_non_finite_rgb);
  CHECK_FALSE(pixel(0, 0) == k_non_finite_rgb);
  stbi_image_free(raw);
  int fw = 0, fh = 0;
  unsigned char* fig = stbi_load((dir / "f" / "layer0.self.head0.png").c_str(), &fw, &fh, &n, 3);
  REQUIRE(fig != nullptr);
  int magenta = 0;
  for (int k = 0; k < fw * fh; ++k) {
    magenta += Rgb{fig[3 * k], fig[3 * k + 1], fig[3 * k + 2]} == k_non_finite_rgb ? 1 : 0;
  }
  stbi_image_free(fig);
  CHECK(magenta > 4 * 16);  // four cells of the map and the legend swatch
}

TEST_CASE("non-finite: coloured text tables paint NaN cells magenta, json writes them as strings") {
  Matrix v(1, 2);
  v << 0.5f, k_nan;
  TableStyle style;
  style.color = ColorMode::truecolor;
  const std::string text = render_table("t", v, Mask{}, {"q"}, {"a", "b"}, style);
  CHECK(contains(text, "48;2;255;0;255m"));
  style.format = TableFormat::json;
  CHECK(contains(render_table("t", v, Mask{}, {"q"}, {"a", "b"}, style),
                 "\"values\":[[0.5,\"nan\"]]"));
}

TEST_CASE(
    "non-finite: the viewer's stats table gets NaN as \"nan\", not as null (shown as a value that "
    "does not apply)") {
  TempDir dir;
  make_nan_inputs(dir);
  const auto r = run_attnviz(
      nan_run(dir, "run", "--no-heatmap --table none --html " + (dir / "p.html").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream in(dir / "p.html");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t stats = page.find("\"stats\":{");
  REQUIRE(stats != std::string::npos);
  const std::string rows = page.substr(stats, page.find("]}]", stats) - stats);
  CHECK_MESSAGE(contains(rows, "\"nan\""),
                rows);  // the NaN row makes every head's mean entropy NaN
  CHECK_MESSAGE(!contains(rows, "null"), rows);
}
