// stats --batch: each head's pooled figures are the mean (and population standard deviation) of the
// inputs' own `stats` runs, inputs without a figure left out; shards merged give one run's output
// byte for byte; and every flag that does not fit a batch is refused with its own message.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::string k_stats = "stats -m tests/fixtures/planted/planted-heads";
const std::vector<std::string> k_inputs = {"1 2 3 4 1 2 3 4", "5", "7 8 7 8 9", "0 3 6 9 12 15 0 3",
                                           "2 2 2"};

void write_batch(const std::filesystem::path& path) {
  std::ofstream f(path);
  for (const auto& ids : k_inputs) {
    std::string list = ids;
    for (auto& c : list) c = c == ' ' ? ',' : c;
    f << "{\"ids\": [" << list << "]}\n";
  }
}

// A figure of one head in a single run's `stats --format json`, by the batch's name; NaN when null.
double figure(const nlohmann::json& head, const std::string& name) {
  const auto& s = head.at("scaled");
  const nlohmann::json& v = name == "saturated" ? s.at("saturated_share")
                            : name == "sink"    ? s.at("first_key").at("mean")
                                                : s.at(name).at("mean");
  return v.is_number() ? v.get<double>() : std::nan("");
}

}  // namespace

TEST_CASE("stats batch: each head's figures are the mean over the inputs' own stats runs") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  const auto batch =
      run_attnviz(k_stats + " --batch " + (dir / "b.jsonl").string() + " --format json");
  REQUIRE_MESSAGE(batch.exit_code == 0, batch.err);
  const auto pooled = nlohmann::json::parse(batch.out).at("heads");
  REQUIRE(pooled.size() == 8);
  std::vector<nlohmann::json> runs;
  for (const auto& ids : k_inputs) {
    const auto r = run_attnviz(k_stats + " --ids '" + ids + "' --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    runs.push_back(nlohmann::json::parse(r.out).at("heads"));
  }
  for (size_t h = 0; h < pooled.size(); ++h) {
    CAPTURE(h);
    CHECK(pooled[h].at("items") == 5);
    for (const std::string name :
         {"max_weight", "entropy", "saturated", "sink", "previous", "diagonal"}) {
      CAPTURE(name);
      double sum = 0, squares = 0;
      int n = 0;
      for (const auto& run : runs) {
        const double x = figure(run[h], name);
        if (std::isnan(x)) continue;  // the one-token input has no row with a choice
        sum += x, squares += x * x, ++n;
      }
      const auto& got = pooled[h].at("figures").at(name);
      CHECK(got.at("inputs") == n);
      CHECK(n == 4);
      const double mean = sum / n;
      CHECK(got.at("mean").get<double>() == doctest::Approx(mean).epsilon(1e-9));
      CHECK(got.at("stddev").get<double>() ==
            doctest::Approx(std::sqrt(std::max(0.0, squares / n - mean * mean)))
                .epsilon(1e-6)
                .scale(1));
    }
  }
  // The planted previous-token head (layer 0 head 0) puts all its weight on the previous token.
  CHECK(pooled[0].at("figures").at("previous").at("mean").get<double>() == doctest::Approx(1.0));
  CHECK(pooled[0].at("figures").at("previous").at("min").get<double>() == doctest::Approx(1.0));
}

TEST_CASE("stats batch: three shards merged give one run's output byte for byte") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  const std::string m = k_stats + " --batch " + (dir / "b.jsonl").string();
  for (const char* format : {"text", "json", "csv"}) {
    CAPTURE(format);
    const auto one = run_attnviz(m + " --sort entropy --format " + format);
    REQUIRE_MESSAGE(one.exit_code == 0, one.err);
    std::string shards;
    for (int k = 0; k < 3; ++k) {
      const auto path = dir / ("s" + std::to_string(k));
      const auto r =
          run_attnviz(m + " --shard " + std::to_string(k) + "/3 --items " + path.string());
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      shards += " " + path.string();
    }
    const auto merged =
        run_attnviz("merge" + shards + " --sort entropy --format " + std::string(format));
    REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
    CHECK(merged.out == one.out);
  }
  const auto charted =
      run_attnviz("merge " + (dir / "s0").string() + " " + (dir / "s1").string() + " " +
                  (dir / "s2").string() + " --png " + (dir / "charts").string() + " --chart sink");
  REQUIRE_MESSAGE(charted.exit_code == 0, charted.err);
  CHECK(std::filesystem::exists(dir / "charts" / "stats.batch.sink.png"));
}

TEST_CASE("stats batch: flags that do not fit a batch are refused, each with its own message") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  const std::string m = k_stats + " --batch " + (dir / "b.jsonl").string();
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {m + " --role sink", 2, "--role with --batch: a head's role can differ from input to input"},
      {m + " --sort nothing", 2, "--sort 'nothing': unknown statistic"},
      {m + " --ids '1 2'", 2, "--batch"},
      {k_stats + " --ids '1 2' --items " + (dir / "i").string(), 2,
       "--items and --shard go with --batch"},
      {m + " --shard 0/9", 2, "--shard 0/9: 9 shards of 5 inputs leave some empty"},
  };
  for (const auto& c : cases) {
    const auto r = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == c.exit_code);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(r.out.empty());
  }
  CHECK_FALSE(std::filesystem::exists(dir / "i"));
  // Items of stats and of heads are not shards of one run.
  REQUIRE(run_attnviz(m + " --shard 0/2 --items " + (dir / "st0").string()).exit_code == 0);
  REQUIRE(run_attnviz("heads -m tests/fixtures/planted/planted-heads --batch " +
                      (dir / "b.jsonl").string() + " --shard 1/2 --items " + (dir / "hd1").string())
              .exit_code == 0);
  const auto mixed = run_attnviz("merge " + (dir / "st0").string() + " " + (dir / "hd1").string());
  CHECK(mixed.exit_code == 2);
  CHECK(contains(mixed.err, "are not shards of one run"));
  REQUIRE(run_attnviz("heads -m tests/fixtures/planted/planted-heads --batch " +
                      (dir / "b.jsonl").string() + " --shard 0/2 --items " + (dir / "hd0").string())
              .exit_code == 0);
  const auto ascending = run_attnviz("merge " + (dir / "hd0").string() + " " +
                                     (dir / "hd1").string() + " --ascending");
  CHECK(ascending.exit_code == 2);
  CHECK(contains(ascending.err,
                 "--ascending and --chart go with the --items files of stats --batch"));
  // A saturation threshold differing in the seventh digit is another run.
  REQUIRE(run_attnviz(m + " --shard 1/2 --saturation 0.9900001 --items " + (dir / "st1").string())
              .exit_code == 0);
  const auto other = run_attnviz("merge " + (dir / "st0").string() + " " + (dir / "st1").string());
  CHECK(other.exit_code == 2);
  CHECK(contains(other.err, "are not shards of one run"));
  const auto narrow = run_attnviz(m + " --width 40");
  CHECK(narrow.exit_code == 0);
  CHECK(contains(narrow.err, "more than --width 40"));
}
