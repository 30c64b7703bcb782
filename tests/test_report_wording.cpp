// Reports that said less, or other, than the numbers: heads JSON names every head's stack, the
// all-masked-rows warning says what PyTorch would have computed, explain's var(q·k) is the one
// stats computes (over the allowed cells), and the README's 30-second example is the binary's
// output.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

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

namespace {

// One "$ …" line of the README's first console block as attnviz arguments and stdin: "mymodel" is
// put in `dir`, an `echo "…" |` in front becomes stdin, a "# comment" is dropped.
std::pair<std::string, std::string> readme_command(std::string line, const TempDir& dir) {
  line = line.substr(0, line.find("  #"));
  std::string stdin_text;
  if (line.rfind("$ echo \"", 0) == 0) {
    const size_t end = line.find("\" | ");
    REQUIRE(end != std::string::npos);
    stdin_text = line.substr(8, end - 8) + "\n";
    line = "$ " + line.substr(end + 4);
  }
  REQUIRE(line.rfind("$ attnviz ", 0) == 0);
  std::string args = line.substr(10);
  for (size_t at; (at = args.find(" mymodel")) != std::string::npos;) {
    args.replace(at, 8, " '" + (dir / "mymodel").string() + "'");
  }
  return {args, stdin_text};
}

}  // namespace

TEST_CASE("report wording: the README's 30-second example prints what the README shows") {
  const auto readme = lines_of(slurp(std::string(ATTNVIZ_SOURCE_DIR) + "/README.md"));
  size_t at = 0;
  while (at < readme.size() && readme[at] != "```console") ++at;
  TempDir dir;
  size_t compared = 0;
  std::vector<std::string>
      shown;  // the last command's stderr then stdout, as a terminal shows them
  size_t k = 0;
  for (size_t i = at + 1; i < readme.size() && readme[i] != "```" && readme[i] != "..."; ++i) {
    if (readme[i].rfind("$ ", 0) == 0) {
      const auto [args, stdin_text] = readme_command(readme[i], dir);
      const auto r = run_attnviz(args, stdin_text);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      shown = lines_of(r.err + r.out);
      k = 0;
      continue;
    }
    REQUIRE(k < shown.size());
    // init names the folder it wrote, here a temporary one: the README's is "mymodel".
    std::string line = shown[k++];
    for (size_t p; (p = line.find((dir / "mymodel").string())) != std::string::npos;) {
      line.replace(p, (dir / "mymodel").string().size(), "mymodel");
    }
    CHECK(readme[i] == line);
    ++compared;
  }
  CHECK(compared > 10);
}
