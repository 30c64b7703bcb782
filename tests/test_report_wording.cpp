// Reports that said less, or other, than the numbers: heads JSON names every head's stack, the
// all-masked-rows warning says what PyTorch would have computed, explain's var(q·k) is the one
// stats computes (over the allowed cells), init and --html name what they wrote, titles agree.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

TEST_CASE("report wording: heads JSON has stack on every head, \"\" for a model of one stack") {
  const auto r = run_attnviz("heads -m samples/mha -t samples/english.txt --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.at("heads").size() == 4);
  for (const auto& h : j["heads"]) CHECK(h.at("stack") == "");
}

TEST_CASE(
    "report wording: the all-masked warning says what PyTorch computes with -1e9 and with -inf, "
    "and why not") {
  const auto r = run_attnviz(
      "run -m samples/mha -t - --mask samples/mask_all_zeros.txt --no-heatmap --table none",
      "a b c d");
  REQUIRE(r.exit_code == 0);
  // Four equal scores of -1e9: softmax gives 1/4 to each key; four -inf give 0/0.
  CHECK_MESSAGE(
      contains(
          r.err,
          "attnviz: warning: layer0.self: every key is masked for query rows 0-3 (4 of 4); "
          "attnviz shows them as zero rows: a row that may attend to nothing has no attention. "
          "PyTorch's softmax after masked_fill(mask == 0, -1e9) would give a uniform row "
          "(1/4 = 0.25 on each of the 4 keys), after masked_fill(mask == 0, -inf) NaN"),
      r.err);
}

TEST_CASE(
    "report wording: explain's var(q·k) is over the allowed cells of the rows with a choice, as "
    "stats's") {
  const std::string head = " -m samples/mha -t samples/english.txt --causal --head 1";
  const auto json = run_attnviz("explain" + head + " --format json");
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const auto qk = nlohmann::json::parse(json.out).at("qk");
  // Causal: row i allows keys 0..i; row 0 has one key, no choice, and is left out as stats leaves
  // it.
  double s = 0, s2 = 0, n = 0;
  for (size_t i = 1; i < qk.size(); ++i) {
    for (size_t j = 0; j <= i; ++j) {
      const double v = qk[i][j].get<double>();
      s += v, s2 += v * v, n += 1;
    }
  }
  const double variance = s2 / n - (s / n) * (s / n);
  const auto text = run_attnviz("explain" + head);
  REQUIRE(text.exit_code == 0);
  CHECK_MESSAGE(
      contains(text.out,
               fmt::format("here var(q·k) = {:.4g} over the cells the mask allows in the rows "
                           "with a choice of keys (as `attnviz stats` computes it)",
                           variance)),
      text.out);
  const auto stats = run_attnviz("stats" + head + " --format json");
  REQUIRE_MESSAGE(stats.exit_code == 0, stats.err);
  const size_t at = stats.out.find("\"raw_variance\": ");  // head 1's figures come first
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(stats.out.substr(at + 16)) == doctest::Approx(variance).epsilon(1e-4));
}

TEST_CASE("report wording: init names every file it wrote, tokenizer files included") {
  TempDir dir;
  const std::string out = (dir / "m").string();
  const auto r =
      run_attnviz("init --arch llama --d-model 64 --heads 4 --kv-heads 2 --layers 1 -o " + out);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // The folder's own listing, against the line: model.safetensors first, then config.json, then
  // the tokenizer's files.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir / "m"))
    files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"config.json", "model.safetensors", "tokenizer.json"});
  CHECK_MESSAGE(contains(r.err, "attnviz: wrote " + out +
                                    "/model.safetensors, config.json and tokenizer.json\n"),
                r.err);
  const auto bare = run_attnviz("init --d-model 16 --heads 2 -o " + (dir / "b").string());
  CHECK(contains(
      bare.err, "attnviz: wrote " + (dir / "b").string() + "/model.safetensors and config.json\n"));
}

TEST_CASE(
    "report wording: a written --html page is named on stderr with its map count, as --png's "
    "figures are") {
  TempDir dir;
  const std::string page = (dir / "p.html").string();
  const auto r = run_attnviz(
      "run -m samples/mha -t samples/english.txt --layer 0 --head 1,3 --no-heatmap "
      "--table none --html " +
      page);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(page));
  CHECK_MESSAGE(contains(r.err, "attnviz: wrote " + page + " (2 maps)\n"), r.err);  // heads 1 and 3
}

TEST_CASE(
    "report wording: explain's last line says how the layer joins the residual stream, once") {
  const auto bare = run_attnviz("explain -m samples/mha -t samples/english.txt --head 0");
  REQUIRE_MESSAGE(bare.exit_code == 0, bare.err);
  CHECK_MESSAGE(contains(bare.out,
                         "The layer's output is out: a bare attention layer has no residual "
                         "connection.\n"),
                bare.out);
  CHECK(!contains(bare.out, "(a bare attention layer) (x: the layer's input"));
}

TEST_CASE("report wording: table titles separate the model's name with ·, as heatmap titles do") {
  const auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --head 0 --no-heatmap --table probs");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "mha · layer 0 · self · head 0 · weights (softmax)\n"), r.out);
}
