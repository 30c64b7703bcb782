// Head detection: TransformerLens's scores by hand on a 3 × 3 map, against an independent NumPy
// forward pass and scoring on a model with planted heads (tests/fixtures/planted/make_planted.py),
// the planted heads ranked first on the built-in probes, the probes' structure, and the CLI's
// errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/probe.hpp"
#include "attnviz/io/npy.hpp"
#include "emit_blocks.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

const char* const k_planted = "tests/fixtures/planted/planted-heads";

std::vector<PatternSpec> builtins() {
  return {builtin_pattern("previous-token"), builtin_pattern("duplicate-token"),
          builtin_pattern("induction"), builtin_pattern("sink")};
}

// The scores of one 3 × 3 causal map with tokens [7, 8, 7], blocks of one row.
std::vector<double> scores_of(ErrorMeasure measure, bool exclude_bos, bool exclude_current) {
  Matrix probs(3, 3);
  probs << 1, 0, 0,   //
      0.5f, 0.5f, 0,  //
      0.2f, 0.3f, 0.5f;
  DetectionOptions o;
  o.patterns = builtins();
  o.tokens = {7, 8, 7};
  o.measure = measure;
  o.exclude_bos = exclude_bos;
  o.exclude_current = exclude_current;
  HeadDetector detector(o);
  MapInfo info;
  info.n_query = info.n_key = 3;
  info.n_heads = 1;
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  info.mask = mask;
  attnviz::test::emit_blocks(detector, info, Matrix::Zero(3, 3), probs, 1);
  REQUIRE(detector.heads().size() == 1);
  return detector.heads()[0].scores;
}

}  // namespace

TEST_CASE("heads: TransformerLens's mul and abs scores of a 3 x 3 map, by hand") {
  // Patterns of tokens [7, 8, 7]: previous (1,0) (2,1); duplicate (2,0); induction (2,1); sink
  // column 0.
  const auto mul = scores_of(ErrorMeasure::mul, false, false);  // Σ A = 3
  CHECK(mul[0] == doctest::Approx((0.5 + 0.3) / 3));
  CHECK(mul[1] == doctest::Approx(0.2 / 3));
  CHECK(mul[2] == doctest::Approx(0.3 / 3));
  CHECK(mul[3] == doctest::Approx((1 + 0.5 + 0.2) / 3));
  // exclude_bos: column 0 out of both sums: Σ A = 0.5 + 0.3 + 0.5 = 1.3
  const auto bos = scores_of(ErrorMeasure::mul, true, false);
  CHECK(bos[0] == doctest::Approx(0.3 / 1.3));
  CHECK(bos[1] == doctest::Approx(0.0));
  CHECK(bos[2] == doctest::Approx(0.3 / 1.3));
  CHECK(bos[3] == doctest::Approx(0.0));
  // exclude_current: the diagonal out: Σ A = 0.5 + 0.5 = 1.0
  const auto current = scores_of(ErrorMeasure::mul, false, true);
  CHECK(current[0] == doctest::Approx(0.8));
  CHECK(current[3] == doctest::Approx(0.7));
  // abs: 1 − Σ|A − P| / 3. previous: row 0 |1|; row 1 |0.5 − 1| + 0.5; row 2 0.2 + |0.3 − 1| + 0.5
  const auto abs = scores_of(ErrorMeasure::abs, false, false);
  CHECK(abs[0] == doctest::Approx(1.0 - (1.0 + 1.0 + 1.4) / 3));
  // sink: row 0 |1 − 1|; row 1 |0.5 − 1| + 0.5; row 2 |0.2 − 1| + 0.3 + 0.5
  CHECK(abs[3] == doctest::Approx(1.0 - (0.0 + 1.0 + 1.6) / 3));
  // both exclusions: column 0 and the diagonal out of Σ|A − P|: previous: row 1 nothing left (its
  // pattern cell is key 0); row 2 |0.3 − 1| → 1 − 0.7 / 3
  const auto both = scores_of(ErrorMeasure::abs, true, true);
  CHECK(both[0] == doctest::Approx(1.0 - 0.7 / 3));
}

TEST_CASE(
    "heads: the planted model's scores equal the NumPy forward pass and TransformerLens's "
    "formulas") {
  std::ifstream in("tests/fixtures/planted/reference.json");
  REQUIRE(in);
  const auto reference = nlohmann::json::parse(in);
  const std::vector<std::string> patterns = reference.at("patterns");
  for (const auto& input : reference.at("inputs")) {
    std::string ids;
    for (const auto& id : input.at("ids")) ids += std::to_string(id.get<int>()) + " ";
    for (const auto& c : input.at("cases")) {
      std::string flags = " --measure " + c.at("measure").get<std::string>();
      if (!input.at("window").is_null())
        flags += " --window " + std::to_string(input.at("window").get<int>());
      if (c.at("exclude_bos").get<bool>()) flags += " --exclude-bos";
      if (c.at("exclude_current").get<bool>()) flags += " --exclude-current";
      const auto r = run_attnviz(std::string("heads -m ") + k_planted + " --format json --ids '" +
                                 ids + "'" + flags);
      CAPTURE(input.at("name").get<std::string>());
      CAPTURE(flags);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const auto got = nlohmann::json::parse(r.out);
      REQUIRE(got.at("heads").size() == 8);
      for (const auto& h : got.at("heads")) {
        const int layer = h.at("layer"), head = h.at("head");
        // A head with all its weight on excluded keys (the sink head without key 0) has no share
        // left to compare: its weights elsewhere are exp underflows in float, tiny in float64.
        const double left =
            c.at("attention_left")[static_cast<size_t>(layer)][static_cast<size_t>(head)];
        if (left < 1e-3) continue;
        for (size_t p = 0; p < patterns.size(); ++p) {
          const double want =
              c.at("scores")[static_cast<size_t>(layer)][static_cast<size_t>(head)][p];
          CAPTURE(layer);
          CAPTURE(head);
          CAPTURE(patterns[p]);
          CHECK(h.at("scores").at(patterns[p]).get<double>() ==
                doctest::Approx(want).epsilon(2e-5));
        }
      }
    }
  }
}

TEST_CASE("heads: on the built-in probes each planted head leads its pattern by a wide margin") {
  const std::map<std::string, std::pair<int, int>> planted = {{"previous-token", {0, 0}},
                                                              {"duplicate-token", {1, 1}},
                                                              {"induction", {1, 0}},
                                                              {"sink", {0, 1}}};
  for (const std::string probe : {"repeat:15", "duplicate:15"}) {
    for (const auto& [pattern, where] : planted) {
      if (probe.starts_with("duplicate") && pattern == "induction")
        continue;  // no induction target there
      const auto r = run_attnviz(std::string("heads -m ") + k_planted + " --probe " + probe +
                                 " --seed 5 --format json --sort " + pattern);
      CAPTURE(probe);
      CAPTURE(pattern);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const auto heads = nlohmann::json::parse(r.out).at("heads");
      CHECK(heads[0].at("layer") == where.first);
      CHECK(heads[0].at("head") == where.second);
      const double first = heads[0].at("scores").at(pattern),
                   second = heads[1].at("scores").at(pattern);
      CHECK(first > second + 0.3);
    }
  }
}

TEST_CASE("heads: probes are N distinct tokens then the same N, repeated or shuffled, and seeded") {
  const auto repeat = probe_ids(parse_probe("repeat:40"), 1000, {7}, {9}, 3);
  REQUIRE(repeat.size() == 82);
  CHECK(repeat.front() == 7);
  CHECK(repeat.back() == 9);
  const std::vector<int64_t> first(repeat.begin() + 1, repeat.begin() + 41),
      second(repeat.begin() + 41, repeat.end() - 1);
  CHECK(first == second);
  CHECK(std::set<int64_t>(first.begin(), first.end()).size() == 40);
  for (const int64_t id : first) CHECK((id != 7 && id != 9 && id >= 0 && id < 1000));
  CHECK(probe_ids(parse_probe("repeat:40"), 1000, {7}, {9}, 3) == repeat);  // the seed decides
  CHECK(probe_ids(parse_probe("repeat:40"), 1000, {7}, {9}, 4) != repeat);
  const auto shuffled = probe_ids(parse_probe("duplicate:40"), 1000, {}, {}, 3);
  std::vector<int64_t> a(shuffled.begin(), shuffled.begin() + 40),
      b(shuffled.begin() + 40, shuffled.end());
  CHECK(a != b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  CHECK(probe_ids(parse_probe("repeat:16"), 16, {}, {}, 1).size() ==
        32);  // every token of the vocabulary
  CHECK_THROWS_WITH_AS(
      probe_ids(parse_probe("repeat:16"), 16, {0}, {}, 1),
      "--probe: 16 distinct tokens asked for, but the vocabulary has 16 (1 of them special tokens "
      "the probe leaves out)",
      Error);
  for (const char* bad :
       {"repeat", "repeat:", "repeat:0", "repeat:-3", "repeat:5x", "copy:5", "repeat:1000001"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_probe(bad), Error);
  }
}

TEST_CASE("heads: the CLI refuses what it cannot score, each with its own message") {
  const std::string m = std::string("heads -m ") + k_planted;
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {m + " --probe repeat:4 --pattern previous", "unknown pattern 'previous'"},
      {m + " --probe repeat:4 --sort induction --pattern sink",
       "--sort induction: not one of the patterns scored"},
      {m + " --probe repeat:4 --pattern sink --pattern sink",
       "a pattern named 'sink' is given twice"},
      {m + " --probe repeat:4 --ids '1 2'", "choose one"},
      {m + " --probe repeat:40",
       "--probe: 40 distinct tokens asked for, but the vocabulary has 16"},
      {m + " --probe twice:4", "--probe 'twice:4': unknown probe"},
      {m + " --probe repeat:4 --measure l2", "--measure"},
      {m + " --ids '1 2 3' --seed 4", "--seed is the seed of --probe: give --probe too"},
      {m + " --probe repeat:4 --seed=-5",
       "--seed '-5': a whole number from 0 to 18446744073709551615"},
      {m + " --probe repeat:4 --seed 18446744073709551616", "--seed '18446744073709551616'"},
  };
  for (const auto& c : cases) {
    const auto r = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE(
    "heads: --embeddings without --tokens carry no tokens to compare, and are refused for those "
    "patterns") {
  attnviz::test::TempDir dir;
  const auto init = run_attnviz("init --arch decoder -o " + (dir / "m").string() +
                                " --d-model 8 --heads 2 --layers 1");
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  Matrix x(5, 8);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i % 7) - 3.0f;
  write_npy(dir / "x.npy", x);
  const std::string m =
      "heads -m " + (dir / "m").string() + " --embeddings " + (dir / "x.npy").string();
  const auto refused = run_attnviz(m);
  CHECK(refused.exit_code == 2);
  CHECK(contains(
      refused.err,
      "the duplicate-token and induction patterns compare tokens, and --embeddings has none"));
  CHECK(run_attnviz(m + " --pattern previous-token --pattern sink").exit_code == 0);
  std::ofstream(dir / "t.txt") << "a b c a b\n";
  const auto named = run_attnviz(m + " --tokens " + (dir / "t.txt").string() + " --format json");
  REQUIRE_MESSAGE(named.exit_code == 0, named.err);
  CHECK(nlohmann::json::parse(named.out).at("heads").size() == 2);
}

TEST_CASE("heads: a user pattern file scores like the built-in pattern it spells out") {
  attnviz::test::TempDir dir;
  const int n = 10;
  std::ofstream f(dir / "prev.txt");
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) f << (j == i - 1 ? 1 : 0) << (j + 1 < n ? ' ' : '\n');
  }
  f.close();
  const auto r = run_attnviz(std::string("heads -m ") + k_planted +
                             " --ids '3 1 4 1 5 9 2 6 5 3' --format json " +
                             "--pattern previous-token --pattern " + (dir / "prev.txt").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto got =
      nlohmann::json::parse(r.out);  // kept: a range-for over parse(…).at(…) reads a dead temporary
  for (const auto& h : got.at("heads")) {
    CHECK(h.at("scores").at("prev").get<double>() ==
          h.at("scores").at("previous-token").get<double>());
  }
  const auto wrong = run_attnviz(std::string("heads -m ") + k_planted +
                                 " --ids '3 1 4' --pattern " + (dir / "prev.txt").string());
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.out.empty());
}
