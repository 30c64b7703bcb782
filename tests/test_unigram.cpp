// The Unigram model of tokenizer.json on tiny hand-written vocabularies: the expected pieces are
// Hugging Face tokenizers' own test cases (models/unigram/model.rs: test_encode2,
// test_unigram_bytefallback, the encode() doc example) and hand calculations of the Viterbi
// scores; then every refusal with its message. tests/test_sentencepiece.cpp checks the model
// against libsentencepiece's ids on a trained vocabulary.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;

namespace {

const SpecContext k_ctx{"tok/tokenizer.json"};
const SpecPlace k_place{k_ctx, "model"};

std::unique_ptr<TokenModel> unigram(const nlohmann::json& vocab, const nlohmann::json& unk_id = 0,
                                    bool byte_fallback = false) {
  return make_token_model(
      {{"type", "Unigram"}, {"vocab", vocab}, {"unk_id", unk_id}, {"byte_fallback", byte_fallback}},
      k_place);
}

std::vector<TokenPiece> pieces_of(const TokenModel& model, std::string_view word) {
  std::vector<TokenPiece> out;
  model.tokenize(NormalizedText::of_input(word), out);
  return out;
}

// The pieces as the substrings of the word they cover (what tokenizers' encode() returns).
std::vector<std::string> split(const TokenModel& model, std::string_view word) {
  std::vector<std::string> out;
  for (const auto& p : pieces_of(model, word))
    out.emplace_back(word.substr(p.begin, p.end - p.begin));
  return out;
}

std::vector<int64_t> ids(const TokenModel& model, std::string_view word) {
  std::vector<int64_t> out;
  for (const auto& p : pieces_of(model, word)) out.push_back(p.id);
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE(
    "unigram: the encode() example of tokenizers' documentation, with ids, labels and offsets") {
  const auto model =
      unigram(R"([["<unk>", 0.0], ["a", 0.0], ["b", 0.0], ["c", 0.0], ["d", 0.0], ["cd", 1.0],
                                 ["ab", 2.0], ["abc", 5.0], ["abcd", 10.0]])"_json);
  const auto pieces = pieces_of(*model, "abcdacdxx");
  REQUIRE(pieces.size() == 4);
  CHECK(pieces[0].id == 8);
  CHECK(pieces[0].label == "abcd");
  CHECK(pieces[1].id == 1);
  CHECK(pieces[2].id == 5);
  // "xx": two unknown characters fused into one <unk>, labelled as the vocabulary writes it.
  CHECK(pieces[3].id == 0);
  CHECK(pieces[3].label == "<unk>");
  CHECK(pieces[0].begin == 0);
  CHECK(pieces[0].end == 4);
  CHECK(pieces[1].begin == 4);
  CHECK(pieces[2].begin == 5);
  CHECK(pieces[2].end == 7);
  CHECK(pieces[3].begin == 7);
  CHECK(pieces[3].end == 9);
  CHECK(pieces_of(*model, "").empty());
}

TEST_CASE("unigram: tokenizers' test_encode2 (user-defined-like scores, fused unknowns, CJK)") {
  const auto model =
      unigram(R"([["<unk>", 0.0], ["ab", 0.0], ["cd", -0.1], ["abc", -0.2], ["a", -0.3],
                                 ["b", -0.4], ["c", -0.5], ["ABC", -0.5], ["abcdabcd", 20.0], ["q", 20.5],
                                 ["r", 20.5], ["qr", -0.5]])"_json);
  CHECK(split(*model, "abc") == Strings{"abc"});
  CHECK(split(*model, "AB") == Strings{"AB"});
  CHECK(ids(*model, "AB") == std::vector<int64_t>{0});
  CHECK(split(*model, "abcd") == Strings{"ab", "cd"});
  CHECK(split(*model, "abcc") == Strings{"abc", "c"});
  CHECK(split(*model, "xabcabaabcdd") == Strings{"x", "abc", "ab", "a", "ab", "cd", "d"});
  CHECK(split(*model, "xyz東京") == Strings{"xyz東京"});
  CHECK(split(*model, "ABC") == Strings{"ABC"});
  CHECK(split(*model, "abABCcd") == Strings{"ab", "ABC", "cd"});
  CHECK(split(*model, "ababcdabcdcd") == Strings{"ab", "abcdabcd", "cd"});
  CHECK(split(*model, "abqrcd") == Strings{"ab", "q", "r", "cd"});
  // Unknown runs are fused only when adjacent: x | abc | … | d are separate pieces.
  CHECK(ids(*model, "xabcabaabcdd") == std::vector<int64_t>{0, 3, 1, 4, 1, 2, 0});
}

TEST_CASE("unigram: byte fallback as tokenizers' test_unigram_bytefallback") {
  const auto model =
      unigram(R"([["<unk>", 0.0], ["<0xC3>", -0.01], ["<0xA9>", -0.03]])"_json, 0, true);
  const auto pieces = pieces_of(*model, "é");
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].id == 1);
  CHECK(pieces[0].label == "<0xC3>");
  CHECK(pieces[1].id == 2);
  CHECK(pieces[1].label == "<0xA9>");
  // Each byte piece spans the whole character, as tokenizers' offsets do.
  CHECK(pieces[0].begin == 0);
  CHECK(pieces[0].end == 2);
  CHECK(pieces[1].begin == 0);
  CHECK(pieces[1].end == 2);
  // "?é" is one fused unknown run; <0x3F> is missing, so the whole run is <unk>.
  CHECK(ids(*model, "?é") == std::vector<int64_t>{0});
  // Without byte_fallback the same vocabulary gives <unk>.
  CHECK(ids(*unigram(R"([["<unk>", 0.0], ["<0xC3>", -0.01], ["<0xA9>", -0.03]])"_json), "é") ==
        std::vector<int64_t>{0});
}

TEST_CASE("unigram: the unknown penalty is the lowest score minus 10 (hand calculation)") {
  // "qzz": the piece "qzz" scores −30 (the lowest); q alone is unknown: −30 − 10 = −40, then
  // z + z = 2·s. With s = 5.01 the unknown path (−29.98) beats "qzz"; with s = 4.99 (−30.02)
  // it does not.
  const auto vocab = [](double z) {
    return nlohmann::json::array({nlohmann::json::array({"<unk>", 0.0}),
                                  nlohmann::json::array({"qzz", -30.0}),
                                  nlohmann::json::array({"z", z})});
  };
  CHECK(ids(*unigram(vocab(5.01)), "qzz") == std::vector<int64_t>{0, 2, 2});
  CHECK(ids(*unigram(vocab(4.99)), "qzz") == std::vector<int64_t>{1});
  // Exactly equal (−30 both ways): the path found first stays, "qzz" (tried at position 0).
  CHECK(ids(*unigram(vocab(5.0)), "qzz") == std::vector<int64_t>{1});
}

TEST_CASE("unigram: ties keep the first path found, a piece listed twice takes its later id") {
  // a + b = −2 = ab: "ab" reaches the end first (from position 0), b's equal score does not replace
  // it.
  CHECK(ids(*unigram(R"([["<unk>", 0], ["a", -1], ["b", -1], ["ab", -2]])"_json), "ab") ==
        std::vector<int64_t>{3});
  const auto twice = unigram(R"([["<unk>", 0], ["a", -1], ["a", -3]])"_json);
  CHECK(ids(*twice, "a") == std::vector<int64_t>{2});
  CHECK(twice->token_to_id("a") == 2);
  CHECK(twice->id_to_token(1) == "a");
  CHECK(twice->vocab_size() == 3);
}

TEST_CASE(
    "unigram: every vocabulary entry is matched in text, control pieces too (as tokenizers' "
    "trie)") {
  // "<s>" scores 0, above "<" + "s" + ">" (−3): the text "<s>" is the piece <s>, id 1.
  CHECK(ids(*unigram(R"([["<unk>", 0], ["<s>", 0], ["<", -1], ["s", -1], [">", -1]])"_json),
            "<s>") == std::vector<int64_t>{1});
}

TEST_CASE("unigram: offsets follow the normalized text's origins") {
  // "▁ab" from the input " ab" (the space replaced by ▁, as Metaspace does), at input offset 10.
  NormalizedBuilder b;
  b.append("\u2581", 10, 11);
  b.append("a", 11, 12);
  b.append("b", 12, 13);
  const NormalizedText word = b.finish(13);
  const auto model =
      unigram(R"([["<unk>", 0], ["\u2581a", -1], ["b", -1], ["\u2581", -5], ["a", -5]])"_json);
  std::vector<TokenPiece> out;
  model->tokenize(word, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].id == 1);
  CHECK(out[0].begin == 10);
  CHECK(out[0].end == 12);
  CHECK(out[1].id == 2);
  CHECK(out[1].begin == 12);
  CHECK(out[1].end == 13);
}

TEST_CASE("unigram: description, lookups, and a model without unk_id") {
  const auto model = unigram(R"([["a", -1], ["b", -2]])"_json, nullptr, true);
  CHECK(model->description() == "Unigram, 2 tokens, byte fallback");
  CHECK(model->token_to_id("b") == 1);
  CHECK(!model->token_to_id("c"));
  CHECK(!model->id_to_token(2));
  CHECK(!model->id_to_token(-1));
  CHECK(ids(*model, "ab") == std::vector<int64_t>{0, 1});
  CHECK(error_of([&] { pieces_of(*model, "abc"); }) ==
        "tok/tokenizer.json: model: the character 'c' has no piece and the model has no unk_id");
}

TEST_CASE("unigram: refusals name the file, the field and the value") {
  const auto make = [](const nlohmann::json& spec) {
    return error_of([&] { make_token_model(spec, k_place); });
  };
  CHECK(make(R"({"type": "Unigram"})"_json) == "tok/tokenizer.json: model.vocab: missing");
  CHECK(make(R"({"type": "Unigram", "vocab": {"a": 1}})"_json) ==
        "tok/tokenizer.json: model.vocab: expected a list of [piece, score] pairs");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1], ["b"]]})"_json) ==
        "tok/tokenizer.json: model.vocab[1]: expected [piece, score] (a string and a number), got "
        "[\"b\"]");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", "-1"]]})"_json) ==
        "tok/tokenizer.json: model.vocab[0]: expected [piece, score] (a string and a number), got "
        "[\"a\",\"-1\"]");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1]], "unk_id": 1})"_json) ==
        "tok/tokenizer.json: model.unk_id: 1 is not an id of the vocabulary (1 piece)");
  CHECK(make(R"({"type": "Unigram", "vocab": [], "unk_id": 0})"_json) ==
        "tok/tokenizer.json: model.unk_id: 0 is not an id of the vocabulary (0 pieces)");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1]], "unk_id": -1})"_json) ==
        "tok/tokenizer.json: model.unk_id: -1 is not an id of the vocabulary (1 piece)");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1]], "unk_id": "0"})"_json) ==
        "tok/tokenizer.json: model.unk_id: expected an integer, got \"0\"");
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1]], "byte_fallback": 1})"_json) ==
        "tok/tokenizer.json: model.byte_fallback: expected true or false, got 1");
  // Sampling (subword regularization) is not part of a tokenizer.json, and not of attnviz.
  CHECK(make(R"({"type": "Unigram", "vocab": [["a", -1]], "alpha": 0.1})"_json) ==
        "tok/tokenizer.json: model.alpha: is not a Unigram option attnviz implements (vocab, "
        "unk_id, byte_fallback)");
  CHECK(make(R"({"type": "WordPieceX", "vocab": []})"_json)
            .starts_with("tok/tokenizer.json: model.type: the model "
                         "'WordPieceX' is not one attnviz implements"));
}

TEST_CASE("unigram: libsentencepiece's ids on two trained models, converted to tokenizer.json") {
  // make_sentencepiece_fixtures.py converts the identity-normalized unigram models as transformers'
  // SpmConverter does and records each text's Metaspace words (its own split, as tokenizers'
  // metaspace.rs) beside libsentencepiece's ids for the whole text (for a text starting with a
  // space, of the text without it: Metaspace adds no second "▁"); Tokenizers.js agrees on them
  // (check_sentencepiece_fixtures.mjs). Word by word, attnviz's Unigram must give those ids.
  // (End to end through tokenizer.json's Metaspace pre-tokenizer: see the tokenizer.json tests.)
  const auto dir = std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/sentencepiece";
  std::ifstream in(dir / "expected.json");
  const auto all = nlohmann::json::parse(in);
  REQUIRE(all["unigram_json"].size() == 2);
  for (const auto& [name, checks] : all["unigram_json"].items()) {
    CAPTURE(name);
    std::ifstream file(dir / name);
    const auto spec = nlohmann::json::parse(file);
    const SpecContext ctx{name};
    const auto model = make_token_model(spec["model"], SpecPlace{ctx, "model"});
    CHECK(checks.size() == 15);  // the 16 texts less the one writing "<s>" (see the generator)
    for (const auto& check : checks) {
      CAPTURE(check["text"].get<std::string>());
      std::vector<int64_t> got;
      for (const auto& word : check["words"]) {
        for (const auto id : ids(*model, word.get<std::string>())) got.push_back(id);
      }
      CHECK(got == check["ids"].get<std::vector<int64_t>>());
    }
  }
}
