// attnviz align on Marian (hf_marian_text through tests/fixtures/marian's tokenizer): the default
// alignment against one worked out here from PyTorch's cross-attention maps (make_fixtures.py) and
// the tokenizer reference's byte offsets (make_marian_fixtures.py), the --gold ranking's AER, and
// the refusals.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::k_torch;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

const std::string k_run =
    "align -m tests/fixtures/torch/hf_marian_text --tokenizer tests/fixtures/marian "
    "--source-text 'The cat sat on the mat.' --text 'Die Katze sitzt auf der Matte.'";

// The reference's tokens of `text` on one side, each with its word: the count of space-separated
// words that start before the piece's first non-space byte (these texts are ASCII).
std::vector<int> token_words(const std::string& text, const char* side) {
  std::ifstream in(fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/marian/expected.json");
  const nlohmann::json e = nlohmann::json::parse(in);
  for (const auto& c : e["cases"]) {
    if (c["text"] != text) continue;
    std::vector<int> words;
    for (const auto& b : c[side]["begin"]) {
      size_t at = b.get<size_t>();
      while (at < text.size() && text[at] == ' ') ++at;
      int w = 0;
      for (size_t i = 1; i <= at && at < text.size(); ++i)
        w += text[i - 1] == ' ' && text[i] != ' ';
      words.push_back(at < text.size() ? w : -1);
    }
    words.push_back(-1);  // </s>
    return words;
  }
  FAIL("no reference case for ", text);
  return {};
}

}  // namespace

TEST_CASE(
    "align: the penultimate layer's mean, argmax on the predicting rows, as worked out here") {
  const auto r = run_attnviz(k_run);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // hf_marian_text has 2 decoder layers: the penultimate is layer 0; its 4 heads averaged.
  const SafetensorsFile expected =
      SafetensorsFile::open(k_torch / "hf_marian_text/expected.safetensors");
  const Tensor probs = expected.load("decoder.layer0.cross.probs");  // [4, n_t, n_s]
  const int64_t heads = probs.shape[0], n_t = probs.shape[1], n_s = probs.shape[2];
  std::vector<int> target = token_words("Die Katze sitzt auf der Matte.", "target");
  target.insert(target.begin(), -1);  // the decoder's start token, <pad>
  const std::vector<int> source = token_words("The cat sat on the mat.", "source");
  REQUIRE(int64_t(target.size()) == n_t);
  REQUIRE(int64_t(source.size()) == n_s);
  std::set<std::pair<int, int>> links;
  for (int64_t j = 1; j < n_t; ++j) {  // target token j: aligned by row j − 1, which predicts it
    if (target[size_t(j)] < 0) continue;
    int64_t best = -1;
    float best_w = -1;
    for (int64_t s = 0; s < n_s; ++s) {
      if (source[size_t(s)] < 0) continue;
      float w = 0;
      for (int64_t h = 0; h < heads; ++h) w += probs.data[size_t((h * n_t + j - 1) * n_s + s)];
      if (w > best_w) best_w = w, best = s;
    }
    links.insert({source[size_t(best)], target[size_t(j)]});
  }
  std::string line;
  for (const auto& [s, t] : links)
    line += (line.empty() ? "" : " ") + std::to_string(s) + "-" + std::to_string(t);
  CHECK(r.out == line + "\n");
  CHECK(r.err.find("cross-attention of layer 0 · mean of 4 heads, argmax, the row predicting each "
                   "target token; source words: 0 The · 1 cat · 2 sat · 3 on · 4 the · 5 mat.") !=
        std::string::npos);

  const auto j = run_attnviz(k_run + " --format json --rows input --threshold 0.2 --head 1");
  REQUIRE_MESSAGE(j.exit_code == 0, j.err);
  const auto json = nlohmann::json::parse(j.out);
  CHECK(json["heads"] == nlohmann::json::array({1}));
  CHECK(json["rule"] == "weight ≥ 0.2");
  CHECK(json["rows"] == "input");
  REQUIRE(json["pairs"].size() == 1);
  CHECK(json["pairs"][0]["target_words"].size() == 6);
}

TEST_CASE(
    "align --gold: every head ranked by AER; the gold that is a map's own alignment scores 0") {
  TempDir dir;
  const auto own = run_attnviz(k_run + " --layer 1 --head 2");
  REQUIRE_MESSAGE(own.exit_code == 0, own.err);
  std::ofstream(dir / "gold.txt") << own.out;
  const auto r = run_attnviz(k_run + " --gold '" + (dir / "gold.txt").string() + "' --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["maps"].size() == 2 * 4 + 2 + 1);  // every head, each layer's mean, the mean of all
  bool found = false;
  double last = -1;
  for (const auto& m : j["maps"]) {
    CHECK(m["aer"].get<double>() >= last);  // ranked
    last = m["aer"].get<double>();
    if (m["map"] != "layer 1 · head 2") continue;
    found = true;
    CHECK(m["aer"] == 0.0);
    CHECK(m["alignment"].get<std::string>() + "\n" == own.out);
  }
  CHECK(found);
  CHECK(j["maps"][0]["aer"] == 0.0);

  const auto text = run_attnviz(k_run + " --gold '" + (dir / "gold.txt").string() + "'");
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|)") != std::string::npos);

  std::ofstream(dir / "bad.txt") << "0-0 7-1\n";
  const auto bad = run_attnviz(k_run + " --gold '" + (dir / "bad.txt").string() + "'");
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("'7-1': the source has 6 words (indices 0 to 5)") != std::string::npos);
  std::ofstream(dir / "two.txt") << "0-0\n1-1\n";
  const auto two = run_attnviz(k_run + " --gold '" + (dir / "two.txt").string() + "'");
  CHECK(two.exit_code == 1);
  CHECK(two.err.find("2 alignment lines, but align was given 1 sentence pair") !=
        std::string::npos);

  // A batch of pairs: the same pair twice against the same gold line pools to the same rate; each
  // pair's Pharaoh line without --gold.
  const std::string pair =
      R"({"source_text": "The cat sat on the mat.", "text": "Die Katze sitzt auf der Matte."})";
  std::ofstream(dir / "pairs.jsonl") << pair << "\n\n" << pair << "\n";
  std::ofstream(dir / "gold2.txt") << own.out << own.out;
  const std::string batch =
      "align -m tests/fixtures/torch/hf_marian_text --tokenizer "
      "tests/fixtures/marian --batch '" +
      (dir / "pairs.jsonl").string() + "'";
  const auto lines = run_attnviz(batch + " --layer 1 --head 2");
  REQUIRE_MESSAGE(lines.exit_code == 0, lines.err);
  CHECK(lines.out == own.out + own.out);
  const auto pooled =
      run_attnviz(batch + " --format json --gold '" + (dir / "gold2.txt").string() + "'");
  REQUIRE_MESSAGE(pooled.exit_code == 0, pooled.err);
  const auto p = nlohmann::json::parse(pooled.out);
  CHECK(p["pairs"] == 2);
  for (const auto& m : p["maps"]) {
    for (const auto& one : j["maps"]) {
      if (one["map"] != m["map"]) continue;
      CHECK(m["links"] == 2 * one["links"].get<int>());
      CHECK(m["aer"].get<double>() == doctest::Approx(one["aer"].get<double>()));
    }
  }
  std::ofstream(dir / "bad.jsonl") << R"({"source": "a", "text": "b"})"
                                   << "\n";
  const auto field = run_attnviz("align -m tests/fixtures/torch/hf_marian_text --batch '" +
                                 (dir / "bad.jsonl").string() + "'");
  CHECK(field.exit_code == 1);
  CHECK(
      field.err.find("bad.jsonl line 1: unknown field \"source\" (known: source_text, text, id)") !=
      std::string::npos);
}

TEST_CASE("align: what it refuses before a model loads, and a model without cross-attention") {
  const auto ids =
      run_attnviz("align -m tests/fixtures/torch/hf_marian_text --source-ids '1 2' --text 'a'");
  CHECK(ids.exit_code == 2);
  CHECK(ids.err.find("align links words: give the source as --source-text") != std::string::npos);
  CHECK(run_attnviz(k_run + " --threshold 1.5").exit_code == 2);
  CHECK(run_attnviz(k_run + " --rows middle").exit_code == 2);
  CHECK(run_attnviz(k_run + " --format csv").exit_code == 2);
  const auto gpt = run_attnviz(
      "align -m tests/fixtures/torch/hf_gpt2 --source-text 'a' --text 'b' --tokenizer "
      "tests/fixtures/marian");
  CHECK(gpt.exit_code == 2);
}
