// find_tokenizer: which file of a folder (or which file given) becomes the tokenizer, in
// transformers' order of preference; and the converted Unigram tokenizer.json files end to end.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_json.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using test::error_of;
using test::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path k_spm = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/sentencepiece";

std::vector<int64_t> ids_of(const Tokenizer& t, const std::string& text, bool special) {
  std::vector<int64_t> ids;
  for (const TokenPiece& p : t.encode(text, special)) ids.push_back(p.id);
  return ids;
}

nlohmann::json expected() {
  std::ifstream in(k_spm / "expected.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE(
    "find_tokenizer: tokenizer.json, then vocab.json + merges.txt, then a SentencePiece model, "
    "then vocab.txt") {
  TempDir dir;
  CHECK(find_tokenizer(dir.path()) == nullptr);
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n";
  auto t = find_tokenizer(dir.path());
  REQUIRE(t);
  CHECK(t->description().starts_with("vocab.txt: BERT WordPiece (uncased)"));
  CHECK(ids_of(*t, "Hello", true) == std::vector<int64_t>{2, 4, 3});
  CHECK(find_tokenizer(dir / "vocab.txt")->description().starts_with("vocab.txt: BERT WordPiece"));
  std::ofstream(dir / "tokenizer_config.json") << R"({"tokenizer_class": "T5Tokenizer"})";
  for (const char* name : {"sentencepiece.bpe.model", "spiece.model", "tokenizer.model"}) {
    fs::copy_file(k_spm / "unigram.model", dir / name);
    t = find_tokenizer(dir.path());
    REQUIRE(t);
    CHECK_MESSAGE(
        t->description() == std::string("SentencePiece unigram (") + name + ", 2000 pieces)",
        t->description());
  }
  std::ofstream(dir / "tokenizer.json") << "{";
  CHECK(error_of([&] { find_tokenizer(dir.path()); }).find((dir / "tokenizer.json").string()) == 0);
  // A file is read as what its name says.
  CHECK(find_tokenizer(k_spm / "unigram.model")->description() ==
        "SentencePiece unigram (unigram.model, 2000 pieces)");
  CHECK(is_tokenizer_file_name("a/tokenizer.json"));
  CHECK(is_tokenizer_file_name("a/x.model"));
  CHECK(is_tokenizer_file_name("a/vocab.txt"));
  CHECK(is_tokenizer_file_name("a/merges.txt"));
  CHECK_FALSE(is_tokenizer_file_name("a/tokens.txt"));
  std::ofstream(dir / "tokens.txt") << "";
  CHECK(error_of([&] { find_tokenizer(dir / "tokens.txt"); }) ==
        (dir / "tokens.txt").string() + ": not a tokenizer file attnviz reads (" +
            k_tokenizer_files + ", or a .gguf file)");
  // vocab.json and merges.txt stand for the pair (not for a tokenizer.json).
  const fs::path gpt2 = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/vocab/gpt2";
  for (const char* file : {"vocab.json", "merges.txt"}) {
    const auto pair = find_tokenizer(gpt2 / file);  // scripts/fetch-vocabularies.sh fetches it
    REQUIRE_MESSAGE(pair, (gpt2 / file).string()
                              << " is missing: run scripts/fetch-vocabularies.sh");
    CHECK(pair->description().starts_with("GPT-2 byte-level BPE (vocab.json + merges.txt"));
  }
}

TEST_CASE("find_tokenizer: a SentencePiece model found in a folder gives libsentencepiece's ids") {
  TempDir dir;
  fs::copy_file(k_spm / "unigram.model", dir / "tokenizer.model");
  const auto t = find_tokenizer(dir.path());
  REQUIRE(t);
  const auto cases = expected()["models"]["unigram.model"]["cases"];
  REQUIRE(cases.size() > 10);
  for (const auto& c : cases) {
    CAPTURE(c["text"].get<std::string>());
    if (c["text"].get<std::string>().find("<s>") != std::string::npos)
      continue;  // refused (test_sentencepiece)
    CHECK(ids_of(*t, c["text"], false) == c["ids"].get<std::vector<int64_t>>());
  }
}

TEST_CASE(
    "tokenizer.json: the converted Unigram files end to end (Metaspace, Unigram) give "
    "libsentencepiece's ids") {
  // expected.json's ids are libsentencepiece's for the text (for a text starting with a space, of
  // the text without it, since Metaspace adds no second "▁"), which Tokenizers.js confirmed.
  const nlohmann::json all = expected();  // iterated below: must outlive the loop
  for (const auto& [name, checks] : all["unigram_json"].items()) {
    CAPTURE(name);
    const auto t = read_tokenizer_json(k_spm / name);
    REQUIRE(checks.size() == 15);
    for (const auto& c : checks) {
      CAPTURE(c["text"].get<std::string>());
      CHECK(ids_of(*t, c["text"], false) == c["ids"].get<std::vector<int64_t>>());
    }
  }
}
