// heads --batch: the pooled figures are the means of the inputs' own runs, four shards merged give
// one run's output byte for byte, and every malformed batch, shard set or items file is refused
// with its own message, leaving no items file behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::string k_heads = "heads -m tests/fixtures/planted/planted-heads";

// Nine inputs: ids repeated twice at several lengths, and one text.
void write_batch(const std::filesystem::path& path) {
  std::ofstream f(path);
  const std::vector<std::vector<int>> inputs = {
      {1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11, 12},   {0, 3, 6},
      {15, 14},  {2, 2, 5, 9}, {13, 1, 7, 7, 4, 11}, {6, 10}};
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string ids;
    for (int pass = 0; pass < 2; ++pass) {
      for (const int id : inputs[i]) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    }
    f << "{\"ids\": [" << ids << "], \"id\": " << i << "}\n";
    if (i == 3) f << "\n";  // blank lines are skipped
  }
  f << "{\"text\": \"a b c d a b c d\", \"id\": \"text\"}\n";
}

}  // namespace

TEST_CASE("heads batch: the pooled scores are each head's mean over the inputs' own runs") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  const auto pooled =
      run_attnviz(k_heads + " --batch " + (dir / "b.jsonl").string() + " --format json");
  REQUIRE_MESSAGE(pooled.exit_code == 0, pooled.err);
  const auto got = nlohmann::json::parse(pooled.out);
  // The same inputs one at a time.
  std::vector<nlohmann::json> single;
  std::ifstream in(dir / "b.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    std::string input;
    if (j.contains("text")) {
      input = " --text '" + j["text"].get<std::string>() + "'";
    } else {
      std::string ids;
      for (const auto& id : j["ids"]) ids += std::to_string(id.get<int>()) + " ";
      input = " --ids '" + ids + "'";
    }
    const auto r = run_attnviz(k_heads + input + " --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    single.push_back(nlohmann::json::parse(r.out));
  }
  REQUIRE(single.size() == 9);
  for (const auto& h : got.at("heads")) {
    CHECK(h.at("items") == 9);
    for (const auto& [pattern, mean] : h.at("scores").items()) {
      double sum = 0, lo = 2, hi = -2;
      for (const auto& s : single) {
        for (const auto& sh : s.at("heads")) {
          if (sh.at("layer") != h.at("layer") || sh.at("head") != h.at("head")) continue;
          const double v = sh.at("scores").at(pattern).get<double>();
          sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
        }
      }
      CAPTURE(pattern);
      CHECK(mean.get<double>() == doctest::Approx(sum / 9).epsilon(1e-12));
      CHECK(h.at("min").at(pattern).get<double>() == lo);
      CHECK(h.at("max").at(pattern).get<double>() == hi);
    }
  }
  CHECK(contains(got.at("input").get<std::string>(), ": 9 inputs, mean over inputs"));
}

TEST_CASE("heads batch: four shards merged give one run's output byte for byte") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  const std::string batch = " --batch " + (dir / "b.jsonl").string();
  for (const char* format : {"text", "json"}) {
    const auto one = run_attnviz(k_heads + batch + " --format " + format);
    REQUIRE_MESSAGE(one.exit_code == 0, one.err);
    std::string files;
    for (int k = 0; k < 4; ++k) {
      const auto items = dir / ("s" + std::to_string(k) + ".jsonl");
      const auto r = run_attnviz(k_heads + batch + " --shard " + std::to_string(k) + "/4 --items " +
                                 items.string());
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      CHECK(contains(r.out, "shard " + std::to_string(k) + "/4"));
      files = items.string() + " " + files;  // any order
    }
    const auto merged = run_attnviz("merge " + files + " --format " + format);
    REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
    CHECK(merged.out == one.out);
  }
}

TEST_CASE(
    "heads batch: malformed batches, shards and items files are refused, and no items file is "
    "left") {
  TempDir dir;
  write_batch(dir / "b.jsonl");
  std::ofstream(dir / "bad.jsonl")
      << "{\"ids\": [1, 2]}\n{\"ids\": [1, 2]}\n{\"tokens\": [\"a\"]}\n";
  std::ofstream(dir / "notjson.jsonl") << "{\"ids\": [1, 2]}\n{ids: 3}\n";
  std::ofstream(dir / "big.jsonl") << "{\"ids\": [1, 99]}\n";
  {  // one line past heads' bound of 65,536 tokens: the file's content, exit 1
    std::ofstream long_line(dir / "long.jsonl");
    long_line << "{\"ids\": [0";
    for (int i = 0; i < 65536; ++i) long_line << ",0";
    long_line << "]}\n";
  }
  const std::string items = " --items " + (dir / "items.jsonl").string();
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {k_heads + " --batch " + (dir / "bad.jsonl").string() + items, 1,  // the file's content
       "bad.jsonl line 3: unknown field \"tokens\""},
      {k_heads + " --batch " + (dir / "notjson.jsonl").string() + items, 1,
       "notjson.jsonl line 2: not JSON"},
      {k_heads + " --batch " + (dir / "big.jsonl").string() + items, 1,
       "big.jsonl line 1: id 99 at position 1"},
      {k_heads + " --batch " + (dir / "long.jsonl").string() + items, 1,
       "long.jsonl line 1: --ids: 65537 tokens; heads takes at most 65536"},
      {k_heads + " --batch " + (dir / "b.jsonl").string() + " --ids '1 2'", 2,
       "--batch reads the inputs from its file"},
      {k_heads + " --batch " + (dir / "b.jsonl").string() + " --shard 4/4", 2,
       "--shard '4/4': K/N with 0 ≤ K < N"},
      {k_heads + " --ids '1 2'" + items, 2, "--items and --shard go with --batch"},
      {k_heads + " --batch " + (dir / "nope.jsonl").string(), 1,
       "nope.jsonl: cannot open the --batch file"},
      {k_heads + " --batch " + (dir / "b.jsonl").string() + " --shard 9/10" + items, 2,
       "--shard 9/10: 10 shards of 9 inputs leave some empty"},
      {k_heads + " --batch " + dir.path().string(), 2,
       "not a regular file; a --batch file is read more than once"},
  };
  for (const auto& c : cases) {
    const auto r = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == c.exit_code);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir / "items.jsonl"));
  }
  // Shards: one missing, one twice, shards of different runs, a shard cut short.
  for (int k = 0; k < 2; ++k) {
    REQUIRE(run_attnviz(k_heads + " --batch " + (dir / "b.jsonl").string() + " --shard " +
                        std::to_string(k) + "/2 --items " +
                        (dir / ("s" + std::to_string(k))).string())
                .exit_code == 0);
  }
  REQUIRE(run_attnviz(k_heads + " --batch " + (dir / "b.jsonl").string() +
                      " --shard 1/2 --measure abs --items " + (dir / "abs1").string())
              .exit_code == 0);
  REQUIRE(run_attnviz(k_heads + " --batch " + (dir / "b.jsonl").string() +
                      " --shard 1/2 --window 2 --items " + (dir / "win1").string())
              .exit_code == 0);  // a shard run with another mask
  {
    std::ifstream in(dir / "s1");
    std::ofstream cut(dir / "cut1"), huge(dir / "huge1");
    std::string line;
    std::getline(in, line);
    cut << line << '\n';  // the header alone
    huge << line << '\n';
    std::getline(in, line);
    const auto at = line.find("\"layer\":0");
    REQUIRE(at != std::string::npos);
    huge << line.replace(at, 9, "\"layer\":1e300") << '\n';
  }
  const std::string s0 = (dir / "s0").string(), s1 = (dir / "s1").string();
  const std::vector<Case> merges = {
      {"merge " + s0, 2, "is one of 2 shards, but 1 file given"},
      {"merge " + s0 + " " + (dir / "win1").string(), 2, "are not shards of one run"},
      {"merge " + s0 + " " + (dir / "huge1").string(), 1,
       "\"layer\" is 1e+300, not a whole number"},
      {"merge " + s0 + " " + s0, 2, "are both shard 0/2"},
      {"merge " + s0 + " " + (dir / "abs1").string(), 2, "are not shards of one run"},
      {"merge " + s0 + " " + (dir / "cut1").string(), 1, "ends before input 1 (of 9)"},
      {"merge " + (dir / "b.jsonl").string(), 1, "not an attnviz --items header"},
  };
  for (const auto& c : merges) {
    const auto r = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == c.exit_code);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(r.out.empty());
  }
  CHECK(run_attnviz("merge " + s1 + " " + s0).exit_code == 0);
  // The same file name with other inputs: the batch's hash tells the shards apart.
  std::ofstream(dir / "b.jsonl", std::ios::app) << "{\"ids\": [3, 3, 3]}\n";
  REQUIRE(run_attnviz(k_heads + " --batch " + (dir / "b.jsonl").string() + " --shard 1/2 --items " +
                      (dir / "other1").string())
              .exit_code == 0);
  const auto other = run_attnviz("merge " + s0 + " " + (dir / "other1").string());
  CHECK(other.exit_code == 2);
  CHECK(contains(other.err, "are not shards of one run"));
}

TEST_CASE("check batch: each input checked alone, findings named by line, exit 3 when any fails") {
  TempDir dir;
  std::ofstream(dir / "c.jsonl") << "{\"ids\": [1, 2, 3]}\n\n{\"text\": \"a b\", \"id\": "
                                    "\"short\"}\n{\"ids\": [4, 5, 6, 7]}\n";
  const std::string m =
      "check -m tests/fixtures/planted/planted-heads --batch " + (dir / "c.jsonl").string();
  const auto clean = run_attnviz(m);
  CHECK(clean.exit_code == 0);
  CHECK(contains(clean.out, "check: 3 inputs, 24 maps, no problems"));
  // --pad 2 leaves a 2-token input no key at all: line 3 fails, the others pass.
  const auto padded = run_attnviz(m + " --pad 2");
  CHECK(padded.exit_code == 3);
  CHECK(contains(padded.out,
                 "c.jsonl line 3: layer 0 · self · head 0: every key is masked in query rows 0-1"));
  CHECK_FALSE(contains(padded.out, "line 1:"));
  CHECK(contains(padded.err, "check: 8 problems in 1 of 3 inputs (24 maps)"));
  const auto json =
      run_attnviz(m + " --pad 2 --format json --shard 1/2");  // inputs 1 (line 3) only
  CHECK(json.exit_code == 3);
  std::istringstream lines(json.out);
  std::string first, last;
  std::getline(lines, first);
  std::getline(lines, last);
  const auto item = nlohmann::json::parse(first);
  CHECK(item.at("line") == 3);
  CHECK(item.at("id") == "short");
  CHECK(item.at("findings").size() == 8);
  CHECK(nlohmann::json::parse(last).at("summary").at("inputs") == 1);
  CHECK(run_attnviz(m + " --ids '1 2'").exit_code == 2);
  // Notes of the inputs (here: hash vectors of a model without an embedding table) are counted, not
  // dropped.
  std::ofstream(dir / "ids.jsonl") << "{\"ids\": [1, 2, 3]}\n{\"ids\": [4, 5]}\n";
  const auto hashed = run_attnviz("check -m samples/mha --batch " + (dir / "ids.jsonl").string());
  CHECK_MESSAGE(hashed.exit_code == 0, hashed.err);
  CHECK(contains(hashed.err, "attnviz: note: 2 of 2 inputs have notes; the first, line 1: "));
  CHECK(contains(
      run_attnviz("check -m tests/fixtures/planted/planted-heads --ids '1 2' --shard 0/2").err,
      "--shard goes with --batch"));
}
