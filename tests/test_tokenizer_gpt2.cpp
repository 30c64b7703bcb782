// GPT-2's real vocabulary (scripts/fetch-vocabularies.sh): every text of the corpus gives the ids
// of an independent implementation (tests/fixtures/make_tokenizer_references.mjs, gpt-3-encoder),
// with pieces that cover the text (test_tokenizer_references.cpp checks the ids of every fixture).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/json.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

namespace {

const std::filesystem::path k_source = ATTNVIZ_SOURCE_DIR;

// GPT-2's tokenizer; fails (never skips) when the vocabulary was not fetched.
const Tokenizer& gpt2() {
  static const std::unique_ptr<Tokenizer> tokenizer = [] {
    const auto dir = k_source / "tests/fixtures/vocab/gpt2";
    if (!std::filesystem::exists(dir / "vocab.json") ||
        !std::filesystem::exists(dir / "merges.txt")) {
      FAIL("GPT-2's vocabulary is missing from " << dir.string()
                                                 << ": run scripts/fetch-vocabularies.sh");
    }
    return find_tokenizer(dir);
  }();
  REQUIRE(tokenizer);
  return *tokenizer;
}

}  // namespace

TEST_CASE("tokenizer gpt2: the real vocabulary's size and description") {
  CHECK(gpt2().vocab_size() == 50257);
  CHECK(gpt2().description() ==
        "GPT-2 byte-level BPE (vocab.json + merges.txt, 50257 tokens, 50000 merges)");
}

TEST_CASE("tokenizer gpt2: every corpus text gives gpt-3-encoder's ids, pieces covering the text") {
  const auto fixture = read_json_file(k_source / "tests/fixtures/tokenizers/gpt2.json");
  REQUIRE(fixture.at("reference").get<std::string>().starts_with("gpt-3-encoder@1.1.4"));
  REQUIRE(fixture.at("cases").size() >= 100);
  for (const auto& item : fixture.at("cases")) {
    const auto text = item.at("text").get<std::string>();
    const auto expected = item.at("ids").get<std::vector<int64_t>>();
    const bool add_special = item.at("add_special").get<bool>();  // GPT-2 adds no special tokens
    CAPTURE(text);
    CAPTURE(add_special);
    const auto pieces = gpt2().encode(text, add_special);
    std::vector<int64_t> ids;
    std::string joined;
    size_t at = 0;
    for (const auto& piece : pieces) {
      ids.push_back(piece.id);
      CHECK(piece.begin == at);
      CHECK(piece.end > piece.begin);
      CHECK(piece.label == gpt2().label(piece.id));
      joined += text.substr(piece.begin, piece.end - piece.begin);
      at = piece.end;
    }
    CHECK(ids == expected);
    CHECK(joined == text);
  }
}

TEST_CASE("tokenizer gpt2: labels of real ids") {
  CHECK(gpt2().label(3797) == "\u2423cat");  // "Ġcat"
  CHECK(gpt2().label(220) == "\u2423");      // "Ġ", a lone space
  CHECK(gpt2().label(198) == "\\n");         // "Ċ"
  CHECK(gpt2().label(50256) == "<|endoftext|>");
  CHECK(gpt2().label(50257) == "#50257");
  // "我" is E6 88 91: GPT-2 splits it into a piece of two bytes and one of one.
  const auto pieces = gpt2().encode("我", false);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].label == "<0xE6><0x88>");
  CHECK(pieces[1].label == "<0x91>");
  CHECK(gpt2().encode(" café", false).front().label == "\u2423café");  // one token, é whole
}

namespace {

// A GPT-2 folder (the real vocab.json + merges.txt) with `config` as its tokenizer_config.json.
struct Gpt2Folder {
  test::TempDir dir;
  explicit Gpt2Folder(const std::string& config) {
    const auto from = k_source / "tests/fixtures/vocab/gpt2";
    std::filesystem::copy_file(from / "vocab.json", dir / "vocab.json");
    std::filesystem::copy_file(from / "merges.txt", dir / "merges.txt");
    if (!config.empty()) std::ofstream(dir / "tokenizer_config.json") << config;
  }
  std::vector<int64_t> ids(const std::string& text, bool special) const {
    std::vector<int64_t> out;
    for (const auto& p : find_tokenizer(dir.path())->encode(text, special)) out.push_back(p.id);
    return out;
  }
};

}  // namespace

TEST_CASE(
    "tokenizer gpt2: special tokens of tokenizer_config.json, as transformers' GPT2Tokenizer reads "
    "them") {
  using Ids = std::vector<int64_t>;
  // "a" 64, "b" 65, "<|endoftext|>" 50256; "<" 27, "|" 91, "x" 87, ">" 29.
  CHECK(Gpt2Folder("").ids("a<|endoftext|>b", true) == Ids{64, 50256, 65});
  CHECK(Gpt2Folder("").ids("a", true) == Ids{64});  // GPT2Tokenizer adds no BOS by default
  CHECK(Gpt2Folder(R"({"add_bos_token": true})").ids("a", true) == Ids{50256, 64});
  CHECK(Gpt2Folder(R"({"add_bos_token": true})").ids("a", false) == Ids{64});
  // An added token the vocabulary has is matched whole; lstrip and friends are refused.
  CHECK(Gpt2Folder(R"({"added_tokens_decoder": {"64": {"content": "a", "special": true}}})")
            .ids("bab", false) == Ids{65, 64, 65});
  const Gpt2Folder strip(R"({"added_tokens_decoder": {"64": {"content": "a", "lstrip": true}}})");
  CHECK(
      test::error_of([&] { strip.ids("a", false); }) ==
      (strip.dir / "tokenizer_config.json").string() +
          ": added_tokens_decoder.64.lstrip: true is not implemented for vocab.json + merges.txt");
  // A special token vocab.json lacks would get a new id in transformers: a text holding it is
  // refused.
  const Gpt2Folder pad(R"({"pad_token": "<pad>"})");
  CHECK(pad.ids("<pa", false) == Ids{27, 8957});
  CHECK(test::error_of([&] { pad.ids("x<pad>", false); }) ==
        (pad.dir / "vocab.json").string() +
            ": the text holds '<pad>' at byte 1, a special token of GPT2Tokenizer "
            "that is not in vocab.json (transformers would give it a new id, outside the model's "
            "table)");
  // Another class reads these files by its own rules (RoBERTa adds <s> … </s>).
  const Gpt2Folder roberta(R"({"tokenizer_class": "RobertaTokenizer"})");
  CHECK(test::error_of([&] { roberta.ids("a", false); }) ==
        (roberta.dir / "tokenizer_config.json").string() +
            ": tokenizer_class: attnviz reads vocab.json + merges.txt as "
            "GPT2Tokenizer does; RobertaTokenizer adds or handles special tokens otherwise (give "
            "its tokenizer.json)");
  CHECK(Gpt2Folder(R"({"tokenizer_class": "GPT2TokenizerFast"})").ids("a", false) == Ids{64});
}
