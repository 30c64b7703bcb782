// Tests of what attnviz writes being what it says (issue 38's outputs): one JSON document with
// --logits, NaN spelled alike in every JSON writer, Markdown and CSV cells that a renderer or a
// spreadsheet cannot misread, the viewer's script allowed by its hash only, the figures' memory
// refused up front, the --png line on stderr, diff figures that show masked cells and what changed,
// heads charts on the data's own scale, pooled terminal maps that say so.
#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/io/npy.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/render/terminal.hpp"
#include "attnviz/sinks/png_sink.hpp"
#include "run_cli.hpp"
#include "sha256.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace {

const std::string k_llama =
    "run -m tests/fixtures/torch/hf_llama --layout-file tests/fixtures/torch/llama_layout.json "
    "--ids tests/fixtures/torch/hf_llama/ids.txt --no-heatmap ";

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size()))
    ++n;
  return n;
}

// RFC 4648 base64 of bytes, written here from the standard (the page's own encoder is not asked).
std::string base64_of(const std::string& bytes) {
  static const char* const digits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

std::string hex_to_bytes(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace

TEST_CASE(
    "outputs: run --format json --logits K is one JSON document holding the maps and the "
    "predictions") {
  const auto r = run_attnviz(k_llama + "--format json --layer 0 --head 0 --logits 2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  nlohmann::json doc;
  REQUIRE_NOTHROW(doc = nlohmann::json::parse(r.out));  // two documents back to back: "extra data"
  REQUIRE(doc.is_object());
  REQUIRE(doc["maps"].is_array());
  CHECK(doc["maps"].size() == 1);
  CHECK(doc["maps"][0]["layer"] == 0);
  REQUIRE(doc["logits"]["positions"].is_array());
  CHECK(doc["logits"]["positions"].size() == 7);  // ids.txt holds 7 ids, 2 predictions each
  CHECK(doc["logits"]["positions"][0]["predictions"].size() == 2);
  // --table none: the predictions alone, as before.
  const auto alone = run_attnviz(k_llama + "--format json --table none --logits 2");
  REQUIRE_MESSAGE(alone.exit_code == 0, alone.err);
  CHECK(nlohmann::json::parse(alone.out).contains("positions"));
}

TEST_CASE("outputs: NaN and inf are the strings nan, inf and -inf in JSON, never null") {
  nlohmann::ordered_json doc = {
      {"a", std::nan("")}, {"b", {1.5, -INFINITY, INFINITY}}, {"c", nullptr}};
  CHECK(json_text(doc) == R"({"a":"nan","b":[1.5,"-inf","inf"],"c":null})");
  // stats --format json on inputs whose last row is NaN: var(q) of a head takes every query, so it
  // is NaN; nlohmann alone writes null, the same as a figure with no value (a layer's "head").
  TempDir dir;
  REQUIRE(run_attnviz("init -o " + (dir / "m").string() + " --d-model 8 --heads 2").exit_code == 0);
  Matrix x(4, 8);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) x(i, j) = i == 3 ? std::nanf("") : 0.1f * static_cast<float>(i + j);
  }
  write_npy(dir / "x.npy", x);
  const auto r = run_attnviz("stats -m " + (dir / "m").string() + " --embeddings " +
                             (dir / "x.npy").string() + " --causal --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "\"q_variance\": \"nan\""));
  CHECK_FALSE(contains(r.out, "\"q_variance\": null"));
}

TEST_CASE("outputs: Markdown labels escape HTML and Markdown syntax in every command") {
  CHECK(markdown_field("<s>") == "&lt;s&gt;");
  CHECK(markdown_field("<bos>") == "&lt;bos&gt;");
  CHECK(markdown_field("a|b") == "a\\|b");
  CHECK(markdown_field("__init__") == "\\_\\_init\\_\\_");
  CHECK(markdown_field("R&D") == "R&amp;D");
  CHECK(markdown_field("plain") == "plain");
  Matrix values(2, 2);
  values << 1.0f, 0.0f, 0.5f, 0.5f;
  TableStyle style;
  style.format = TableFormat::markdown;
  const std::string table =
      render_table("<b>title</b>", values, Mask{}, {"<s>", "<pad>"}, {"<s>", "<pad>"}, style);
  CHECK(contains(table, "**&lt;b&gt;title&lt;/b&gt;**"));
  CHECK(contains(table, "| &lt;s&gt; | &lt;pad&gt; |"));
  CHECK_FALSE(std::regex_search(table, std::regex("<[a-z/]")));
  const std::string report = report_table("t", {{"token", "n"}, {"<bos>", "1"}},
                                          TableFormat::markdown, [](size_t c) { return c == 0; });
  CHECK(contains(report, "&lt;bos&gt;"));
  // explain names tokens in its Markdown too: the labels of a pre-split token file.
  TempDir dir;
  std::ofstream(dir / "t.txt") << "<s> the <pad>\n";
  const auto r = run_attnviz("explain -m samples/mha --tokens " + (dir / "t.txt").string() +
                             " --head 0 --format markdown --cell 0,1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "&lt;s&gt;"));
  CHECK_FALSE(contains(r.out, "<s>"));
  CHECK_FALSE(contains(r.out, "<pad>"));
}

TEST_CASE(
    "outputs: CSV text cells that a spreadsheet would run as formulas get a leading quote, numbers "
    "do not") {
  CHECK(csv_field("=1+2") == "'=1+2");
  CHECK(csv_field("+cmd") == "'+cmd");
  CHECK(csv_field("-x") == "'-x");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("\tx") == "'\tx");
  CHECK(csv_field("=a,b") == "\"'=a,b\"");  // neutralised, then quoted for its comma
  CHECK(csv_field("-0.125") == "-0.125");   // a negative number stays a number
  CHECK(csv_field("-inf") == "-inf");
  CHECK(csv_field("+0.0013") == "+0.0013");  // diff's signed ΔH
  CHECK(csv_field("the") == "the");
  TempDir dir;
  std::ofstream(dir / "t.txt") << "=HYPERLINK(x) the @cmd\n";
  const auto r = run_attnviz("run -m samples/mha --tokens " + (dir / "t.txt").string() +
                             " --layer 0 --head 0 --format csv --no-heatmap");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "query,'=HYPERLINK(x),the,'@cmd\n"));
  CHECK(contains(r.out, "\n'=HYPERLINK(x),"));
}

TEST_CASE("outputs: the viewer's CSP allows its one script by SHA-256, not 'unsafe-inline'") {
  TempDir dir;
  const auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --table none --html " +
                  (dir / "v.html").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string page = slurp(dir / "v.html");
  std::smatch csp;
  REQUIRE(std::regex_search(page, csp, std::regex("script-src ([^;\"]*)")));
  CHECK_FALSE(contains(csp[1].str(), "unsafe-inline"));
  // The one script without a type: its exact text between the tags, hashed here.
  const size_t open = page.rfind("<script>");
  REQUIRE(open != std::string::npos);
  const size_t begin = open + std::string("<script>").size(), end = page.find("</script>", begin);
  const std::string script = page.substr(begin, end - begin);
  CHECK(csp[1].str() ==
        "'sha256-" + base64_of(hex_to_bytes(attnviz::test::sha256_hex(script))) + "'");
  CHECK(count(page, "<script>") == 1);
}

TEST_CASE("outputs: --max-pixels whose figures cannot fit in memory is refused before the run") {
  // 20,000 tokens (hash vectors: samples/mha has no position limit) at the documented maximum:
  // pooled 2 × 2, 10,000² cells, ≥ 32 bytes each with one writer thread — over 3 GiB.
  TempDir dir;
  std::string tokens;
  for (int i = 0; i < 20000; ++i) tokens += "w" + std::to_string(i % 50) + " ";
  std::ofstream(dir / "t.txt") << tokens << "\n";
  const auto r =
      run_attnviz("run -m samples/mha --tokens " + (dir / "t.txt").string() +
                  " --no-heatmap --table none --max-pixels 16384 --png " + (dir / "f").string());
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "--max-pixels 16384"), r.err);
  CHECK(contains(r.err, "GiB limit"));
  CHECK_FALSE(std::filesystem::exists(dir / "f"));
}

TEST_CASE("outputs: figures too large for many writers are drawn by fewer, not refused") {
  // docs/figures-and-viewer.md's 4,096 tokens at --max-pixels 4096: 4,096² cells of at least 18
  // bytes per writer (a queued figure's cells, mask and drawn canvas) — over 2 GiB with eight
  // writers, within it with one.
  const FigureFile png;
  CHECK(attnviz::figure_memory(4096, 4096, png, 8) > attnviz::k_max_figure_memory);
  CHECK(attnviz::figure_memory(4096, 4096, png, 1) < attnviz::k_max_figure_memory);
  // A sink for eight writers (the default on an eight-thread machine) takes it, with fewer writers.
  TempDir dir;
  PngOptions options;
  options.threads = 8;
  options.max_pixels = 4096;
  CHECK_NOTHROW(PngSink(dir / "f", options, 4096));
  options.max_pixels = 16384;
  CHECK_THROWS_AS(PngSink(dir / "g", options, 20000), Error);
}

TEST_CASE("outputs: a --png folder written says how many figures went where") {
  TempDir dir;
  const auto r = run_attnviz(
      "run -m samples/mha -t samples/english.txt --layer 0 --head 0 --no-heatmap --table none "
      "--png " +
      (dir / "f").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "f")) ++files;
  CHECK(contains(r.err, "attnviz: wrote " + std::to_string(files) + " figures to " +
                            (dir / "f").string() + "\n"));
  const auto heads =
      run_attnviz("heads -m tests/fixtures/planted/planted-heads --probe repeat:8 --png " +
                  (dir / "h").string());
  REQUIRE_MESSAGE(heads.exit_code == 0, heads.err);
  CHECK(contains(heads.err, "figures to " + (dir / "h").string()));
}

TEST_CASE("outputs: heads charts colour the scores over their own range and say so") {
  TempDir dir;
  const auto r = run_attnviz(
      "heads -m tests/fixtures/planted/planted-heads --probe repeat:8 --figure-format svg "
      "--png " +
      (dir / "h").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // On repeat:8 no mul score can pass 8/17: on a fixed [0, 1] scale no cell reaches the top colour.
  // Scaled to the data, the best head's cell is viridis's top (253, 231, 37), as cairo writes it.
  const std::string svg = slurp(dir / "h" / "heads.induction.svg");
  CHECK(contains(svg, "fill:rgb(99.215686%,90.588235%,14.509804%)"));
}

TEST_CASE(
    "outputs: diff figures hatch masked cells, print no negative zero and keep what differs in the "
    "title") {
  TempDir dir;
  const std::string a = "dog pen milk cup hat dog pen milk cup hat sun",
                    b = "dog pen milk cup hat dog pen milk cup hat box";
  const auto r = run_attnviz(
      "diff -m tests/fixtures/planted/planted-heads --ids '0 1 2 3 4 5' --b-ids '0 1 2 3 9 5' "
      "--top 1 --figure-format pdf --png " +
      (dir / "d").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::string pdf_name;
  for (const auto& e : std::filesystem::directory_iterator(dir / "d")) {
    if (e.path().filename().string().find(".head") != std::string::npos)
      pdf_name = e.path().string();
  }
  REQUIRE(!pdf_name.empty());
  TempDir text_dir;
  REQUIRE(
      std::system(("pdftotext -layout '" + pdf_name + "' '" + (text_dir / "t.txt").string() + "'")
                      .c_str()) == 0);
  const std::string text = slurp(text_dir / "t.txt");
  CHECK(contains(text, "masked"));  // the legend of hatched cells: a causal map's upper triangle
  CHECK_FALSE(contains(text, "-0.00"));
  CHECK_FALSE(contains(text, "−0.00"));
  // Two texts that differ in their last word: each title shows its own ending.
  const auto t =
      run_attnviz("diff -m samples/induction --text '" + a + "' --b-text '" + b + "' --top 1");
  REQUIRE_MESSAGE(t.exit_code == 0, t.err);
  CHECK_MESSAGE(contains(t.out, "hat sun\""), t.out);
  CHECK_MESSAGE(contains(t.out, "hat box\""), t.out);
}

TEST_CASE(
    "outputs: a pooled terminal heatmap says how cells were combined and labels rows by query "
    "ranges") {
  const int n = 100;
  Matrix values = Matrix::Constant(n, n, 0.01f);
  std::vector<std::string> labels;
  for (int k = 0; k < n; ++k) labels.push_back("t" + std::to_string(k));
  HeatmapStyle style;
  style.width = 40;
  const std::string out = render_heatmap("map", values, Mask{}, labels, labels, style);
  // 40 columns, labels "96–99" (5) + a space: 34 columns for 100 keys, 3 tokens per cell.
  CHECK_MESSAGE(contains(out, "\n3\u00d73 tokens per cell, their largest weig"), out);
  CHECK(contains(out, "\n0\u20132 "));
  CHECK(contains(out, "\n3\u20135 "));
  CHECK_FALSE(contains(out, "\nt0 "));
  CHECK(contains(out,
                 "0         30        60        90"));  // the ruler: first key of every 10th column
}

TEST_CASE(
    "outputs: stats --batch warns of its width from the table's own lines, its note wrapped to the "
    "width") {
  TempDir dir;
  std::ofstream(dir / "b.jsonl")
      << "{\"text\": \"dog pen milk cup\"}\n{\"text\": \"hat dog pen\"}\n";
  const auto r = run_attnviz("stats -m samples/induction --batch " + (dir / "b.jsonl").string() +
                             " --width 130");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  int widest = 0;  // every line after the title: the table and its note
  for (size_t at = r.out.find('\n') + 1; at < r.out.size();) {
    const size_t end = r.out.find('\n', at);
    widest = std::max(widest, display_width(r.out.substr(at, end - at)));
    at = end + 1;
  }
  CHECK(widest <= 130);
  CHECK_MESSAGE(!contains(r.err, "columns, more than --width"), r.err);
  // Narrower than the table: the warning names the table's real width.
  const auto narrow = run_attnviz("stats -m samples/induction --batch " +
                                  (dir / "b.jsonl").string() + " --width 40");
  REQUIRE_MESSAGE(narrow.exit_code == 0, narrow.err);
  const std::string header = narrow.out.substr(
      narrow.out.find('\n') + 1,
      narrow.out.find('\n', narrow.out.find('\n') + 1) - narrow.out.find('\n') - 1);
  CHECK_MESSAGE(contains(narrow.err, "needs " + std::to_string(display_width(header)) + " columns"),
                narrow.err, header);
}
