// `attnviz stats`: the text table byte for byte on a hand-known map, JSON figures of a model whose
// every score is equal (zero embeddings), CSV shape, sorting, filtering, charts and bad flags.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/compute/attention.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/npy.hpp"
#include "attnviz/reports/stats_report.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

// One head of equal causal scores over 4 tokens: row i is uniform over i + 1 keys.
std::vector<HeadStats> equal_causal_head() {
  Mask mask;
  mask.causal = true;
  MapInfo info;
  info.n_heads = 1;
  info.n_query = info.n_key = 4;
  info.d_head = 4;
  info.scale = 0.5f;
  info.mask = std::make_shared<const Mask>(mask);
  Matrix s = Matrix::Zero(4, 4), p(4, 4);
  for (int i = 0; i < 4; ++i) masked_softmax_row(s.row(i).data(), p.row(i).data(), 4, i, mask);
  // Queries and keys of components ±1: mean 0, variance 1.
  Matrix qk(4, 4);
  qk << 1, -1, 1, -1, -1, 1, -1, 1, 1, 1, -1, -1, -1, -1, 1, 1;
  StatsCollector c(StatsOptions{});
  c.begin_map(info);
  c.queries_and_keys(info, qk, qk);
  c.on_block(AttentionBlock(info, 0, 4, s, p));
  c.end_map(info);
  return c.heads();
}

}  // namespace

TEST_CASE("stats: the text table of a hand-known head, byte for byte") {
  // Row 0 has one key (no figures); rows 1-3 are uniform over 2, 3, 4 keys:
  // max w = (1/2 + 1/3 + 1/4)/3 = 0.361; H = (ln 2 + ln 3 + ln 4)/3 = 1.059; keys = 3;
  // ‖J‖ = (√(1/4) + √(2/9) + √(3/16))/3 = 0.468; sink = prev = self = 0.361; pred = 4·1·1.
  StatsReportOptions report;
  report.model_name = "hand";
  const std::string expected =
      "hand · attention statistics · saturated: max weight >= 0.99\n"
      "map          head  role   max w      H  H/ln n   keys    gap    J_F   sat  var qk   pred  "
      "var s   sink   prev   self  cf sat  +rows   cf H\n"
      "layer0.self     0  broad  0.361  1.059   1.000  3.000  0.000  0.468  0.0%   0.000  4.000  "
      "0.000  0.361  0.361  0.361    0.0%     +0  1.059\n"
      "layer0.self   all         0.361  1.059   1.000  3.000  0.000  0.468  0.0%   0.000  4.000  "
      "0.000  0.361  0.361  0.361    0.0%     +0  1.059\n";
  const std::string out = render_stats(equal_causal_head(), StatsOptions{}, report);
  CHECK(out.substr(0, expected.size()) == expected);
  CHECK(contains(out, "cf = counterfactual softmax(q·k unscaled)"));
  report.format = TableFormat::markdown;
  const std::string md = render_stats(equal_causal_head(), StatsOptions{}, report);
  CHECK(contains(md, "\n| layer0.self |    0 | broad | 0.361 | 1.059 |"));
  CHECK(contains(md, "\n|:----------- | ----:|:----- | -----:|"));
}

TEST_CASE(
    "stats: a table wider than --width is split into column blocks repeating map, head, role") {
  // The full-width lines of the byte-for-byte case above; at 80 columns they split after "sat"
  // (column 73; "var qk" would end at 81) and after "cf sat" (24 label columns + 51 = 75).
  const std::string full[] = {
      "map          head  role   max w      H  H/ln n   keys    gap    J_F   sat  var qk   pred  "
      "var s   sink   prev   self  cf sat  +rows   cf H",
      "layer0.self     0  broad  0.361  1.059   1.000  3.000  0.000  0.468  0.0%   0.000  4.000  "
      "0.000  0.361  0.361  0.361    0.0%     +0  1.059",
      "layer0.self   all         0.361  1.059   1.000  3.000  0.000  0.468  0.0%   0.000  4.000  "
      "0.000  0.361  0.361  0.361    0.0%     +0  1.059"};
  std::string expected = "hand · attention statistics · saturated: max weight >= 0.99\n";
  for (const auto& line : full) expected += line.substr(0, 73) + '\n';
  expected += '\n';
  for (const auto& line : full) expected += line.substr(0, 24) + line.substr(73, 51) + '\n';
  expected += '\n';
  for (const auto& line : full) expected += line.substr(0, 24) + line.substr(124) + '\n';
  StatsReportOptions report;
  report.model_name = "hand";
  report.width = 80;
  const std::string out = render_stats(equal_causal_head(), StatsOptions{}, report);
  CHECK(out.substr(0, expected.size()) == expected);
  // The notes below wrap at spaces: no line is wider than 80 columns.
  size_t start = 0;
  while (start < out.size()) {
    const size_t end = out.find('\n', start);
    CHECK_MESSAGE(display_width(out.substr(start, end - start)) <= 80,
                  out.substr(start, end - start));
    start = end + 1;
  }
  CHECK(contains(out, "cf = counterfactual softmax(q·k unscaled)"));
}

TEST_CASE("stats cli: zero embeddings give equal scores: JSON figures by hand") {
  TempDir dir;
  write_npy(dir / "x.npy", Matrix::Zero(4, 128));  // q = b_q, k = b_k for every token: equal scores
  const auto r = run_attnviz("stats -m samples/mha --causal --format json --embeddings " +
                             (dir / "x.npy").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["saturation"] == 0.99);
  CHECK(j["temperature"] == 1.0);
  REQUIRE(j["heads"].size() == 4);
  for (const auto& h : j["heads"]) {
    CHECK(h["scope"] == "head");
    CHECK(h["role"] == "broad");
    CHECK(h["d_k"] == 16);
    CHECK(h["scale"] == 0.25);
    CHECK(h["mask"] == "causal");
    CHECK(h["rows"] == 3);  // row 0 has one key: no figures
    CHECK(h["single_key_rows"] == 1);
    CHECK(h["scaled"]["choice_rows"] == 3);  // row 0 has one key: one-hot, not saturated
    CHECK(h["scaled"]["saturated_rows"] == 0);
    CHECK(h["scaled"]["saturated_share"] == 0.0);
    CHECK(h["scaled"]["entropy"]["mean"].get<double>() ==
          doctest::Approx((std::log(6.0) + std::log(4.0)) / 3));
    CHECK(h["scaled"]["effective_keys"]["mean"].get<double>() == doctest::Approx(3.0));
    CHECK(h["scaled"]["entropy_normalized"]["min"].get<double>() == doctest::Approx(1.0));
    CHECK(h["unscaled"]["entropy"]["mean"].get<double>() ==
          doctest::Approx((std::log(6.0) + std::log(4.0)) / 3));
    CHECK(h["extra_saturated_rows"] == 0);
    CHECK(h["logits"]["raw_variance"].get<double>() == doctest::Approx(0.0));
    CHECK(h["scaled"]["max_weight_histogram"].size() == 20);
    // Rows 1-3 (max weights 1/2, 1/3, 1/4 → bins 10, 6, 5); the one-key row 0 is not counted.
    CHECK(h["scaled"]["max_weight_histogram"][19] == 0);
    CHECK(h["scaled"]["max_weight_histogram"][10] == 1);
    CHECK(h["scaled"]["max_weight_histogram"][6] == 1);
    CHECK(h["scaled"]["max_weight_histogram"][5] == 1);
  }
  REQUIRE(j["layers"].size() == 1);
  CHECK(j["layers"][0]["heads"] == 4);
  CHECK(j["layers"][0]["head"].is_null());
  CHECK(j["all"]["rows"] == 12);
}

TEST_CASE(
    "stats cli: csv has one line per head, per layer and overall, columns named like the JSON") {
  const auto r = run_attnviz("stats -m samples/mha -t samples/english.txt --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 7);  // header + 4 heads + 1 layer + all
  CHECK(r.out.rfind(
            "scope,stack,layer,site,head,heads,role,n_query,n_key,d_k,score,scale,mask,rows,", 0) ==
        0);
  CHECK(contains(r.out, ",scaled.entropy.mean,"));
  CHECK(contains(r.out, ",unscaled.saturated_share,"));
  CHECK(contains(r.out, "\nlayer,,0,self,,4,,"));
}

TEST_CASE("stats cli: --sort orders heads, --ascending flips, --top and --role filter") {
  const auto sinks = [](const std::string& args) {
    const auto r =
        run_attnviz("stats -m samples/mha -t samples/english.txt --causal --format json " + args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto j = nlohmann::json::parse(r.out);
    std::vector<double> v;
    for (const auto& h : j["heads"]) v.push_back(h["scaled"]["first_key"]["mean"]);
    return v;
  };
  const auto desc = sinks("--sort sink");
  REQUIRE(desc.size() == 4);
  CHECK(std::is_sorted(desc.rbegin(), desc.rend()));
  const auto asc = sinks("--sort sink --ascending");
  CHECK(std::is_sorted(asc.begin(), asc.end()));
  CHECK(asc.front() == desc.back());
  CHECK(sinks("--sort sink --top 2") == std::vector<double>(desc.begin(), desc.begin() + 2));
  CHECK(sinks("--role sink").empty());
  CHECK(sinks("--role broad").size() == 4);
  CHECK(sinks("--head 2").size() == 1);
}

TEST_CASE("stats cli: a fully masked input is counted, not averaged in") {
  const auto r = run_attnviz(
      "stats -m samples/mha -t - --mask samples/mask_all_zeros.txt --format json", "a b c d");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["heads"][0]["fully_masked_rows"] == 4);
  CHECK(j["heads"][0]["rows"] == 0);
  CHECK(j["heads"][0]["scaled"]["entropy"]["mean"].is_null());
  CHECK(contains(r.err, "attnviz: warning: layer0.self: every key is masked"));
}

TEST_CASE("stats cli: --png writes the grid and the histogram") {
  TempDir dir;
  const auto r = run_attnviz("stats -m samples/mha -t samples/chinese.txt --chart entropy --png " +
                             dir.path().string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* name : {"stats.grid.entropy.png", "stats.max_weight.png"}) {
    CAPTURE(name);
    REQUIRE(std::filesystem::exists(dir / name));
    CHECK(attnviz::test::slurp(dir / name).substr(1, 3) == "PNG");
  }
}

TEST_CASE("stats cli: bad flags are usage errors with their own messages") {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--sort bogus", "--sort 'bogus': unknown statistic (known: max_weight, entropy,"},
      {"--chart bogus --png /tmp", "--chart 'bogus': unknown statistic"},
      {"--role bogus", "--role 'bogus': unknown role (known: broad, sink, previous-token, self"},
      {"--layer 3", "--layer 3: the model has 1 layer (0)"},
      {"--saturation 1.5", "--saturation"},
      {"--temperature 0", "--temperature"},
      {"--top 0", "--top"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = run_attnviz("stats -m samples/mha -t samples/english.txt " + c.args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
  }
}
