// What the user typed against what the model saw, end to end: [UNK] labels and the note counting
// them, a byte order mark, and trained embeddings never replaced by hash vectors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE(
    "inputs cli: a BERT folder labels unknown words [UNK], counts them on stderr, drops a BOM") {
  TempDir dir;
  std::ofstream(dir / "vocab_tokens.txt") << "[CLS] [SEP] [UNK] the fox over dog\n";
  const auto init = run_attnviz("init --arch bert -o " + (dir / "bert").string() +
                                " --d-model 16 --heads 2 "
                                "--layers 1 --vocab " +
                                (dir / "vocab_tokens.txt").string());
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  std::ofstream(dir / "words.txt")
      << "\xEF\xBB\xBF[CLS] the quick fox jumped over the zebra [SEP]\n";
  const auto r =
      run_attnviz("run -m " + (dir / "bert").string() + " -t " + (dir / "words.txt").string() +
                  " --no-heatmap --table none --save " + (dir / "maps.safetensors").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.err, "attnviz: note: 3 of 9 tokens are not in"));
  CHECK(contains(r.err, "are embedded as [UNK] (id 2): quick, jumped, zebra\n"));
  const auto labels = nlohmann::json::parse(
      SafetensorsFile::open(dir / "maps.safetensors").metadata().at("layer0.self.query_labels"));
  CHECK(labels == nlohmann::json::array(
                      {"[CLS]", "the", "[UNK]", "fox", "[UNK]", "over", "the", "[UNK]", "[SEP]"}));
}

TEST_CASE("inputs cli: a GPT-2 folder without vocab.txt is an error naming what was looked for") {
  TempDir dir;
  const auto init = run_attnviz("init --arch gpt2 -o " + (dir / "gpt2").string() +
                                " --d-model 16 --heads 2 "
                                "--layers 1");
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  std::filesystem::remove(
      dir / "gpt2" / "tokenizer.json");  // init's byte-level one: this folder has GPT-2's files
  std::ofstream(dir / "gpt2" / "vocab.json") << "{\"the\": 0}";
  std::ofstream(dir / "gpt2" / "merges.txt") << "#version: 0.2\n";
  const auto r = run_attnviz("run -m " + (dir / "gpt2").string() + " -t -", "the cat sat");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(contains(r.err, "attnviz: error: gpt2 has a token embedding table"));
  CHECK(contains(
      r.err, "found vocab.json, merges.txt: that tokenizer makes ids from text, so give --text"));
  // --ids are the model's own ids: they run.
  CHECK(run_attnviz("run -m " + (dir / "gpt2").string() + " --ids 0 --no-heatmap --table none")
            .exit_code == 0);
}
