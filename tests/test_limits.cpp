// Size limits that would otherwise end in a file nobody can read or an out-of-memory kill: the
// safetensors header limit of --save, and tables too large to build whole (CSV is streamed
// instead).
#include <doctest/doctest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "attnviz/sinks/terminal_sink.hpp"
#include "emit_blocks.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

namespace {

MapInfo map_info(int n_query, int n_key, const std::vector<std::string>* labels,
                 std::shared_ptr<const Mask> mask) {
  MapInfo m;
  m.id = HeadId{"", 0, Site::self, 0};
  m.n_heads = 1;
  m.n_query = n_query;
  m.n_key = n_key;
  m.mask = std::move(mask);
  if (labels) m.query_labels = m.key_labels = std::make_shared<const Labels>(*labels);
  return m;
}

TerminalOptions table_options(TableFormat format) {
  TerminalOptions o;
  o.draw_heatmaps = false;
  o.table = TableKind::probs;
  o.tables.head = 0;
  o.table_style.format = format;
  o.table_style.precision = 2;
  o.model_name = "m";
  return o;
}

}  // namespace

TEST_CASE("limits: a safetensors header over 100 MB is refused before writing, naming the limit") {
  test::TempDir dir;
  const float w = 1.0f;
  // 100,000,001 bytes of metadata value alone: the header is past the readers' limit.
  const std::map<std::string, std::string> metadata = {{"labels", std::string(100'000'001, 'a')}};
  try {
    write_safetensors(dir / "big.safetensors", {{"w", {1}, &w}}, metadata);
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("100000000-byte limit") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "big.safetensors"));
  // Just under: written, and our reader (the same limit) opens it.
  const std::map<std::string, std::string> fits = {{"labels", std::string(1'000'000, 'a')}};
  write_safetensors(dir / "ok.safetensors", {{"w", {1}, &w}}, fits);
  CHECK(SafetensorsFile::open(dir / "ok.safetensors").metadata().at("labels").size() == 1'000'000);
}

TEST_CASE(
    "limits: --save refuses labels that would pass the header limit at the map, not at the end") {
  test::TempDir dir;
  // The limit lowered to 1,000 bytes (100 MB of labels would make a slow test). Two labels of 300
  // bytes: query_labels and key_labels are each ["x…","y…"], 613 bytes as a JSON string with its
  // quotes escaped; one map's metadata is then over 1,000 bytes.
  const std::vector<std::string> labels = {std::string(300, 'x'), std::string(300, 'y')};
  const auto mask = std::make_shared<const Mask>();
  SaveOptions fits_options;
  fits_options.max_header = 2'000;
  SaveSink fits(dir / "fits.safetensors", fits_options);
  CHECK_NOTHROW(fits.begin_map(map_info(2, 2, &labels, mask)));
  SaveOptions options;
  options.max_header = 1'000;
  SaveSink sink(dir / "maps.safetensors", options);
  try {
    sink.begin_map(map_info(2, 2, &labels, mask));
    FAIL("expected an Error");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("maps.safetensors: --save would write a safetensors header") !=
          std::string::npos);
    CHECK(message.find("shorter input") != std::string::npos);
    CHECK(message.find("over the 1000-byte limit") != std::string::npos);
    CHECK(e.exit_code() == k_exit_runtime);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "maps.safetensors"));
}

TEST_CASE("limits: text, markdown (and json --table both) tables past 512×512 cells are refused") {
  const auto mask = std::make_shared<const Mask>();
  for (TableFormat format : {TableFormat::text, TableFormat::markdown, TableFormat::json}) {
    CAPTURE(table_format_name(format));
    std::ostringstream out;
    TerminalOptions options = table_options(format);
    if (format == TableFormat::json) options.table = TableKind::both;  // two tables: not streamed
    TerminalSink sink(out, options);
    const MapInfo big = map_info(513, 512, nullptr, mask);  // 262,656 cells: one row too many
    try {
      sink.begin_map(big);
      FAIL("expected a usage error");
    } catch (const Error& e) {
      CHECK(e.exit_code() == k_exit_usage);
      CHECK(std::string(e.what()).find("513×512 = 262656 cells") != std::string::npos);
      // The way out that streams: another format, or for json one kind of table.
      const char* hint =
          format == TableFormat::json ? "--table probs or --table scores" : "--format csv";
      CHECK(std::string(e.what()).find(hint) != std::string::npos);
    }
    // 512×512 exactly is allowed (begin_map gathers it; no block needs to be fed to tell).
    TerminalSink ok(out, options);
    CHECK_NOTHROW(ok.begin_map(map_info(512, 512, nullptr, mask)));
  }
}

TEST_CASE("limits: a csv table is streamed block by block, the same bytes as the whole table") {
  // 3 queries × 2 keys, causal, fed one row at a time: each row is printed as its block arrives.
  const std::vector<std::string> labels = {"a", "b,c"};
  const std::vector<std::string> queries = {"q0", "q1", "q2"};
  Mask causal;
  causal.causal = true;
  const auto mask = std::make_shared<const Mask>(causal);
  MapInfo info = map_info(3, 2, &queries, mask);
  info.key_labels = std::make_shared<const Labels>(labels);
  Matrix probs(3, 2);
  probs << 1.0f, 0.0f, 0.25f, 0.75f, 0.5f, 0.5f;
  std::ostringstream out;
  TerminalSink sink(out, table_options(TableFormat::csv));
  sink.begin_map(info);
  CHECK(out.str() == "query,a,\"b,c\"\n");  // the header before any row
  sink.on_block(AttentionBlock(info, 0, 1, probs.topRows(1), probs.topRows(1)));
  CHECK(out.str() == "query,a,\"b,c\"\nq0,1.00,\n");  // masked cell (0, 1) empty
  sink.on_block(AttentionBlock(info, 1, 3, probs.bottomRows(2), probs.bottomRows(2)));
  sink.end_map(info);
  sink.finish();
  CHECK(out.str() == "query,a,\"b,c\"\nq0,1.00,\nq1,0.25,0.75\nq2,0.50,0.50\n");
}

TEST_CASE("limits: a csv table past the text limit is streamed, not refused") {
  const auto mask = std::make_shared<const Mask>();
  const int n = 600;  // 360,000 cells
  const Matrix probs = Matrix::Constant(n, n, 1.0f / n);
  std::ostringstream out;
  TerminalSink sink(out, table_options(TableFormat::csv));
  test::emit_blocks(sink, map_info(n, n, nullptr, mask), probs, probs, 256);
  sink.finish();
  const std::string text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == n + 1);
  CHECK(text.rfind("599,0.00,", std::string::npos) != std::string::npos);
}

TEST_CASE("limits: a json table is streamed block by block, the same bytes as the gathered array") {
  const std::vector<std::string> keys = {"a", "b"};
  Mask causal;
  causal.causal = true;
  const auto mask = std::make_shared<const Mask>(causal);
  MapInfo info = map_info(3, 2, nullptr, mask);  // no query labels: indices
  info.key_labels = std::make_shared<const Labels>(keys);
  Matrix probs(3, 2);
  probs << 1.0f, 0.0f, 0.25f, 0.75f, 0.5f, 0.5f;
  std::ostringstream out;
  TerminalSink sink(out, table_options(TableFormat::json));
  test::emit_blocks(sink, info, probs, probs, 2);  // blocks of 2 rows and 1 row
  MapInfo second = info;
  second.id.layer = 1;  // the tables are of head 0, in every layer
  test::emit_blocks(sink, second, probs, probs, 1);
  sink.finish();
  // Written by hand from render_table's JSON (tested byte for byte in test_table.cpp).
  const std::string table =
      R"j({"title":"m · layer L · self · head 0 · weights (softmax)","stack":"","layer":L,"site":"self",)j"
      R"j("head":0,"kind":"probs","queries":["0","1","2"],)j"
      R"j("keys":["a","b"],"values":[[1.0,null],[0.25,0.75],[0.5,0.5]]})j";
  std::string layer0 = table, layer1 = table;
  for (auto [text, n] : {std::pair{&layer0, "0"}, std::pair{&layer1, "1"}}) {
    text->replace(text->find("layer L"), 7, std::string("layer ") + n);
    text->replace(text->find("\"layer\":L"), 9, std::string("\"layer\":") + n);
  }
  CHECK(out.str() == "[\n" + layer0 + ",\n" + layer1 + "\n]\n");
  // And the gathered path (--table both gathers; here: render_table) gives the same object.
  TableStyle style;
  style.format = TableFormat::json;
  const TableId id{"", 0, "self", 0, "probs"};
  CHECK(render_table("m · layer 0 · self · head 0 · weights (softmax)", probs, causal, {}, keys,
                     style, &id) == layer0 + "\n");
}
