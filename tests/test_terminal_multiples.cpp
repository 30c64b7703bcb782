// Tests of the terminal small multiples: a hand-made 2-head layer byte for byte through the sink,
// wrapping rows of panels, tables after their site, the width bound with CJK labels, pooling.
#include <doctest/doctest.h>

#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/render/terminal.hpp"
#include "attnviz/sinks/terminal_sink.hpp"

using namespace attnviz;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string strip_escapes(const std::string& text) {
  static const std::regex k_sgr("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, k_sgr, "");
}

// One layer's maps as forward announces them: shared mask and labels, one MapInfo per head.
struct Layer {
  std::shared_ptr<const Mask> mask;
  std::vector<std::string> query_labels, key_labels;
  MapInfo info(int head, int n_heads, Site site = Site::self, std::string stack = "") const {
    MapInfo m;
    m.id = HeadId{std::move(stack), 0, site, head};
    m.n_heads = n_heads;
    m.n_query = static_cast<int>(query_labels.size());
    m.n_key = static_cast<int>(key_labels.size());
    m.mask = mask;
    m.query_labels = std::make_shared<const Labels>(query_labels);
    m.key_labels = std::make_shared<const Labels>(key_labels);
    return m;
  }
};

// begin_map, blocks of block_rows rows, end_map, as forward sends them.
void feed(AttentionSink& sink, const MapInfo& info, const Matrix& probs, int block_rows = 2) {
  sink.begin_map(info);
  const Matrix scores = probs.array().log().matrix();
  for (int r = 0; r < info.n_query; r += block_rows) {
    const int rows = std::min(block_rows, info.n_query - r);
    sink.on_block(
        AttentionBlock(info, r, r + rows, scores.middleRows(r, rows), probs.middleRows(r, rows)));
  }
  sink.end_map(info);
}

TerminalOptions ascii_options(int width, TableKind table = TableKind::none) {
  TerminalOptions o;
  o.model_name = "mha";
  o.table = table;
  o.tables.head = 0;
  o.heatmap_style.color = ColorMode::none;
  o.heatmap_style.width = width;
  return o;
}

// The hand-made layer: 3 tokens, key 2 is padding, two heads whose largest weight is 0.9.
Layer three_tokens() {
  auto mask = std::make_shared<Mask>();
  mask->n_pad_keys = 1;
  return Layer{mask, {"The", "cat", "sat"}, {"The", "cat", "sat"}};
}
Matrix head0() {
  Matrix p(3, 3);
  p << 0.6f, 0.4f, 0.0f, 0.5f, 0.5f, 0.0f, 0.2f, 0.8f, 0.0f;
  return p;
}
Matrix head1() {
  Matrix p(3, 3);
  p << 0.9f, 0.1f, 0.0f, 0.3f, 0.7f, 0.0f, 0.7f, 0.3f, 0.0f;
  return p;
}

PooledMap pooled(const MultiplesPlan& plan, const Matrix& probs) {
  PooledMap map(plan.grid);
  map.add(0, probs);
  return map;
}

}  // namespace

TEST_CASE("terminal multiples: a 2-head layer in ASCII, byte for byte through the sink") {
  const Layer layer = three_tokens();
  std::ostringstream out;
  TerminalSink sink(out, ascii_options(40));
  feed(sink, layer.info(0, 2), head0());
  CHECK(out.str().empty());  // head 0 waits for head 1 of its site
  feed(sink, layer.info(1, 2), head1());
  // Width 40: labels L = 3, 36 columns for 2 panels 2 apart → M = 17; 3 keys → 4 columns each
  // (the cap), so a panel is 12 wide. One scale for both heads: [0, 0.9], so ramp index =
  // round(9 v / 0.9) = round(10 v): 0.6 → '*', 0.4 → '=', 0.5 → '+', 0.2 → ':', 0.8 → '%',
  // 0.9 → '@', 0.1 → '.', 0.3 → '-', 0.7 → '#'. Key 2 is padding: '/'.
  const std::string expected =
      "mha \xC2\xB7 layer 0 \xC2\xB7 self \xC2\xB7 mask: padding(1)\n"
      "    head 0        head 1\n"
      "The ****====////  @@@@....////\n"
      "cat ++++++++////  ----####////\n"
      "sat ::::%%%%////  ####----////\n"
      "    0   1   2     0   1   2\n"
      "keys: 0 The \xC2\xB7 1 cat \xC2\xB7 2 sat\n"
      "0.000 [ .:-=+*#%@] 0.900  / masked\n"
      "\n";
  CHECK(out.str() == expected);
  sink.finish();
  CHECK(out.str() == expected);  // nothing left over
}

TEST_CASE("terminal multiples: panels that do not fit wrap to a further row of panels") {
  const Layer layer = three_tokens();
  // Width 14: L = 3, 10 columns left; a panel needs at least 6 ("head 0") → one per row, M = 10,
  // 3 columns per key.
  const MultiplesPlan plan = plan_multiples(3, 3, {"head 0", "head 1"}, layer.query_labels, 14);
  CHECK(plan.label_columns == 3);
  CHECK(plan.panels_per_row == 1);
  CHECK(plan.panel_columns == 10);
  CHECK(plan.cell_columns == 3);
  std::vector<TerminalPanel> panels;
  panels.push_back({"head 0", pooled(plan, head0())});
  panels.push_back({"head 1", pooled(plan, head1())});
  HeatmapStyle style;
  style.color = ColorMode::none;
  style.width = 14;
  style.vmax = 0.9f;
  const std::string expected =
      "t\n"
      "    head 0\n"
      "The ***===///\n"
      "cat ++++++///\n"
      "sat :::%%%///\n"
      "    0  1  2\n"
      "\n"
      "    head 1\n"
      "The @@@...///\n"
      "cat ---###///\n"
      "sat ###---///\n"
      "    0  1  2\n"
      "0.000 [ .:-=+\xE2\x80\xA6\n";  // the legend cut to 14 columns, … included
  CHECK(render_multiples("t", plan, panels, *layer.mask, layer.query_labels, {}, style) ==
        expected);
}

TEST_CASE("terminal multiples: tables follow the heatmaps of their site, --head keeps one map") {
  const Layer layer = three_tokens();
  TableStyle table_style;
  const std::string table =
      render_table("mha \xC2\xB7 layer 0 \xC2\xB7 self \xC2\xB7 head 0 \xC2\xB7 weights (softmax)",
                   head0(), *layer.mask, layer.query_labels, layer.key_labels, table_style) +
      "\n";
  {
    std::ostringstream out;
    TerminalSink sink(out, ascii_options(40, TableKind::probs));
    feed(sink, layer.info(0, 2), head0());
    CHECK(out.str().empty());  // head 0's table waits for the site's heatmaps
    feed(sink, layer.info(1, 2), head1());
    const std::string text = out.str();
    REQUIRE(text.size() > table.size());
    CHECK(text.rfind("mha \xC2\xB7 layer 0 \xC2\xB7 self \xC2\xB7 mask: padding(1)\n", 0) == 0);
    CHECK(text.substr(text.size() - table.size()) == table);
  }
  {
    TerminalOptions options = ascii_options(40, TableKind::probs);
    options.heatmaps.head = 0;
    std::ostringstream out;
    TerminalSink sink(out, options);
    feed(sink, layer.info(0, 2), head0());
    feed(sink, layer.info(1, 2), head1());  // not selected
    sink.finish();
    HeatmapStyle style = options.heatmap_style;
    style.vmax = 0.8f;  // one head: its own largest weight
    const std::string heatmap = render_heatmap(
        "mha \xC2\xB7 layer 0 \xC2\xB7 self \xC2\xB7 head 0 \xC2\xB7 mask: padding(1)", head0(),
        *layer.mask, layer.query_labels, layer.key_labels, style);
    CHECK(out.str() == heatmap + "\n" + table);
  }
}

TEST_CASE("terminal multiples: each (stack, layer, site) is its own group with its own title") {
  const Layer layer = three_tokens();
  std::ostringstream out;
  TerminalSink sink(out, ascii_options(60));
  for (Site site : {Site::self, Site::cross}) {
    feed(sink, layer.info(0, 2, site, "decoder"), head0());
    feed(sink, layer.info(1, 2, site, "decoder"), head1());
  }
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() == 2 * 9);
  CHECK(lines[0] ==
        "mha \xC2\xB7 decoder \xC2\xB7 layer 0 \xC2\xB7 self \xC2\xB7 mask: padding(1)");
  CHECK(lines[9] ==
        "mha \xC2\xB7 decoder \xC2\xB7 layer 0 \xC2\xB7 cross \xC2\xB7 mask: padding(1)");
}

TEST_CASE("terminal multiples: 12 heads with CJK labels never exceed 80 or 200 columns") {
  // 12 tokens: CJK labels of 2-16 columns (the longest cut to 12 with …), and ASCII ones.
  const std::vector<std::string> tokens = {"\xE6\x88\x91\xE4\xBB\xAC",
                                           "\xE7\x94\xA8",
                                           "token",
                                           "\xE7\x9A\x84",
                                           "query",
                                           "\xE5\x8E\xBB",
                                           "\xE6\x9F\xA5\xE8\xAF\xA2\xE6\x9F\xA5\xE8\xAF\xA2\xE6"
                                           "\x9F\xA5\xE8\xAF\xA2\xE6\x9F\xA5\xE8\xAF\xA2",
                                           "\xE6\xAF\x8F",
                                           "\xE4\xB8\x80\xE4\xB8\xAA",
                                           "token",
                                           "\xE7\x9A\x84",
                                           "key"};
  std::vector<std::string> titles;
  for (int h = 0; h < 12; ++h) titles.push_back("head " + std::to_string(h));
  // Hand-computed plans: L = 12. Width 80: 67 columns, panels ≥ 12 → 4 fit with gaps, so 3 rows
  // of 4, M = (67 - 6) / 4 = 15. Width 200: 187 columns → all 12 in one row, M = (187 - 22) / 12.
  const MultiplesPlan narrow = plan_multiples(12, 12, titles, tokens, 80);
  CHECK(narrow.label_columns == 12);
  CHECK(narrow.panels_per_row == 4);
  CHECK(narrow.panel_columns == 15);
  const MultiplesPlan wide = plan_multiples(12, 12, titles, tokens, 200);
  CHECK(wide.panels_per_row == 12);
  CHECK(wide.panel_columns == 13);
  for (int width : {80, 200}) {
    for (ColorMode mode : {ColorMode::none, ColorMode::truecolor, ColorMode::ansi256}) {
      CAPTURE(width);
      CAPTURE(static_cast<int>(mode));
      auto mask = std::make_shared<Mask>();
      mask->causal = true;
      const Layer layer{mask, tokens, tokens};
      TerminalOptions options = ascii_options(width);
      options.heatmap_style.color = mode;
      std::ostringstream out;
      TerminalSink sink(out, options);
      for (int h = 0; h < 12; ++h)
        feed(sink, layer.info(h, 12), Matrix::Random(12, 12).cwiseAbs(), 5);
      const auto lines = lines_of(strip_escapes(out.str()));
      int title_rows = 0;
      for (const auto& line : lines) {
        CAPTURE(line);
        CHECK(display_width(line) <= width);
        if (line.rfind(std::string(13, ' ') + "head ", 0) == 0) ++title_rows;
      }
      CHECK(title_rows == (width == 80 ? 3 : 1));
    }
  }
}

TEST_CASE("terminal multiples: a 2,000-token map is max-pooled as its blocks arrive") {
  const int n = 2000;
  std::vector<std::string> tokens;
  for (int k = 0; k < n; ++k) tokens.push_back("tok" + std::to_string(k));
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  const Layer layer{mask, tokens, tokens};
  std::ostringstream out;
  TerminalSink sink(out, ascii_options(80));
  for (int h = 0; h < 2; ++h) {
    const MapInfo info = layer.info(h, 2);
    sink.begin_map(info);
    for (int r = 0; r < n; r += 256) {  // blocks only: the test never holds the 2,000² map either
      const int rows = std::min(256, n - r);
      Matrix probs = 0.1f * Matrix::Random(rows, n).cwiseAbs();
      for (int i = 0; i < rows; ++i) probs.row(i).tail(n - 1 - (r + i)).setZero();  // causal
      if (h == 0 && r <= 1500 && 1500 < r + rows) probs(1500 - r, 10) = 1.0f;
      sink.on_block(AttentionBlock(info, r, r + rows, probs, probs));
    }
    sink.end_map(info);
  }
  // L = 7 ("tok1999"), 72 columns: 2 panels of 35 → pooled; rows are then labelled by their
  // queries, "1947–1999" (9): 70 columns, 2 panels of M = 34 → pool ceil(2000 / 34) = 59, 34 × 34
  // cells.
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() ==
          1 + 1 + 1 + 34 + 1 + 1 + 1 +
              1);  // title, pooling note, head titles, cells, ruler, keys, legend, blank
  for (const auto& line : lines) CHECK(display_width(line) <= 80);
  CHECK(lines[1].starts_with("59\u00d759 tokens per cell"));
  // Query 1500, key 10 → cell (25, 0): row 25 covers queries 1475–1533 (25 × 59), max-pooled to
  // '@'.
  const std::string& row = lines[3 + 25];
  CHECK(row.rfind("1475\u20131533 @", 0) == 0);
  const size_t map_at = std::string("1475\u20131533 ").size();  // bytes: the en dash is 3
  CHECK(row[map_at + 25] != '/');  // the diagonal cell holds allowed pairs
  CHECK(row[map_at + 26] == '/');  // above it every pair is masked
  CHECK(lines[3 + 34].starts_with(
      "          0         590       1180"));  // the first key of every 10th column
  CHECK(lines[3 + 34 + 2] == "0.000 [ .:-=+*#%@] 1.000  / masked");
}

TEST_CASE("terminal multiples: colour panels pad by cells, not bytes, and reset each map line") {
  const Layer layer = three_tokens();
  TerminalOptions options = ascii_options(40);
  options.heatmap_style.color = ColorMode::truecolor;
  std::ostringstream out;
  TerminalSink sink(out, options);
  feed(sink, layer.info(0, 2), head0());
  feed(sink, layer.info(1, 2), head1());
  const auto lines = lines_of(out.str());
  // 3 queries × 4 pixel rows / 2 = 6 map lines, each "L " + 12 cells + reset, 2 spaces, 12 + reset.
  REQUIRE(lines.size() == 1 + 1 + 6 + 1 + 1 + 1 + 1);
  for (int y = 2; y < 8; ++y) {
    const std::string& line = lines[static_cast<size_t>(y)];
    CAPTURE(line);
    CHECK(display_width(strip_escapes(line)) == 4 + 12 + 2 + 12);
    CHECK(line.find("\x1b[0m  \x1b[38;2;") != std::string::npos);
    REQUIRE(line.size() >= 4);
    CHECK(line.substr(line.size() - 4) == "\x1b[0m");
  }
  CHECK(lines[2].rfind("The \x1b[38;2;", 0) == 0);
  CHECK(lines[3].rfind("    \x1b[38;2;", 0) == 0);  // query 0's second line: no label
  CHECK(lines[4].rfind("cat \x1b[38;2;", 0) == 0);
}

TEST_CASE("terminal multiples: one-column keys in colour give every query a labelled line") {
  // 12 tokens, 2 heads, width 30: L = 3, 26 columns → 2 panels of M = 12, so keys are 1 column
  // wide; two pixel rows per line would label only every other query (the old view).
  Layer layer{std::make_shared<Mask>(), {}, {}};
  for (int i = 0; i < 12; ++i) {
    layer.query_labels.push_back("q" + std::to_string(i));
    layer.key_labels.push_back("k" + std::to_string(i));
  }
  TerminalOptions options = ascii_options(30);
  options.heatmap_style.color = ColorMode::truecolor;
  std::ostringstream out;
  TerminalSink sink(out, options);
  const Matrix uniform = Matrix::Constant(12, 12, 1.0f / 12.0f);
  feed(sink, layer.info(0, 2), uniform);
  feed(sink, layer.info(1, 2), uniform);
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() >= 2 + 12);
  for (int q = 0; q < 12; ++q) {
    const std::string& line = lines[static_cast<size_t>(2 + q)];
    CAPTURE(line);
    CHECK(line.rfind(pad_to_width("q" + std::to_string(q), 3) + " \x1b[38;2;", 0) == 0);
    CHECK(display_width(strip_escapes(line)) == 4 + 12 + 2 + 12);
  }
  CHECK(lines[2 + 12].rfind("keys: 0 k0", 0) == 0);  // no thirteenth map line
}

TEST_CASE("terminal multiples: bad plans and mismatched panels are rejected") {
  CHECK_THROWS_AS(plan_multiples(3, 3, {"head 0", "head 1"}, {}, 5), Error);
  CHECK_THROWS_AS(plan_multiples(3, 3, {}, {}, 40), Error);
  CHECK_THROWS_AS(plan_multiples(0, 3, {"head 0"}, {}, 40), Error);
  const MultiplesPlan plan = plan_multiples(3, 3, {"head 0", "head 1"}, {}, 40);
  std::vector<TerminalPanel> panels;
  panels.push_back({"head 0", PooledMap(PoolGrid::for_map(4, 3, 17))});
  CHECK_THROWS_WITH_AS(render_multiples("t", plan, panels, Mask{}, {}, {}, HeatmapStyle{}),
                       doctest::Contains("panel 'head 0' is a [4, 3] map"), Error);
  panels.clear();
  panels.push_back({"head 0", PooledMap(plan.grid)});
  CHECK_THROWS_AS(render_multiples("t", plan, panels, Mask{}, {"a"}, {}, HeatmapStyle{}), Error);
}
