// The BPE model of tokenizer.json on tiny hand-written vocabularies, one case per option of
// tokenizers' models/bpe/model.rs and per refusal, every expectation worked out by hand in the
// comments; then GPT-2's real vocabulary (scripts/fetch-vocabularies.sh) written as a
// tokenizer.json model gives gpt-3-encoder's ids and the vocab.json path's pieces.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/bpe.hpp"
#include "attnviz/inputs/tokenizers/pipeline/gpt2_pretokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "attnviz/io/json.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using nlohmann::json;

namespace {

const SpecContext k_ctx{"tok/tokenizer.json"};
const SpecPlace k_place{k_ctx, "model"};

// a b c and the merges a b (rank 0), b c (1), ab c (2), a a (3).
const json k_vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}, {"aa", 6}};
const json k_merges = {"a b", "b c", "ab c", "a a"};

std::unique_ptr<TokenModel> bpe(json options = json::object(), const json& vocab = k_vocab,
                                const json& merges = k_merges) {
  options["type"] = "BPE";
  options["vocab"] = vocab;
  options["merges"] = merges;
  return make_token_model(options, k_place);
}

std::vector<TokenPiece> pieces_of(const TokenModel& model, const NormalizedText& word) {
  std::vector<TokenPiece> out;
  model.tokenize(word, out);
  return out;
}

std::vector<int64_t> ids(const TokenModel& model, std::string_view word) {
  std::vector<int64_t> out;
  for (const auto& p : pieces_of(model, NormalizedText::of_input(word))) out.push_back(p.id);
  return out;
}

std::vector<std::string> labels(const TokenModel& model, std::string_view word) {
  std::vector<std::string> out;
  for (const auto& p : pieces_of(model, NormalizedText::of_input(word))) out.push_back(p.label);
  return out;
}

std::vector<std::pair<size_t, size_t>> offsets(const TokenModel& model,
                                               const NormalizedText& word) {
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& p : pieces_of(model, word)) out.emplace_back(p.begin, p.end);
  return out;
}

using Offsets = std::vector<std::pair<size_t, size_t>>;

}  // namespace

TEST_CASE("bpe model: lowest rank first, leftmost first, overlaps skipped") {
  const auto m = bpe();
  CHECK(ids(*m, "abc") ==
        std::vector<int64_t>{5});  // a b → ab (0), then ab c (2); b c (1) lost its b
  // "bcab": (a b) rank 0 at 2 first → b c ab; then (b c) rank 1 → bc ab; (bc ab) is no merge.
  CHECK(ids(*m, "bcab") == std::vector<int64_t>{4, 3});
  CHECK(labels(*m, "abab") == std::vector<std::string>{"ab", "ab"});
  // (a a) twice in "aaa": the leftmost merges, the second overlaps it.
  CHECK(labels(*m, "aaa") == std::vector<std::string>{"aa", "a"});
  CHECK(offsets(*m, NormalizedText::of_input("aaa")) == Offsets{{0, 2}, {2, 3}});
  CHECK(ids(*m, "").empty());
}

TEST_CASE("bpe model: merges as pairs read like merges as lines, #version lines are skipped") {
  const auto pairs =
      bpe({}, k_vocab, json::array({{"a", "b"}, {"b", "c"}, {"ab", "c"}, {"a", "a"}}));
  CHECK(ids(*pairs, "bcab") == std::vector<int64_t>{4, 3});
  CHECK(pairs->description() == "BPE, 7 tokens, 4 merges");
  // With "#version" skipped, (a a) ranks 0 and (a b) 1: "aab" is aa b.
  const auto versioned = bpe({}, k_vocab, {"#version: 0.2", "a a", "a b"});
  CHECK(labels(*versioned, "aab") == std::vector<std::string>{"aa", "b"});
  CHECK(versioned->description() == "BPE, 7 tokens, 2 merges");
  // A pair listed twice takes its later rank: (a a) after (a b), so "aab" is a ab.
  CHECK(labels(*bpe({}, k_vocab, {"a a", "a b", "a a"}), "aab") ==
        std::vector<std::string>{"a", "ab"});
}

TEST_CASE("bpe model: offsets come from the normalized text's origins") {
  const auto m = bpe();
  // "abc" at input offset 10.
  CHECK(offsets(*m, NormalizedText::of_input("abca", 10)) == Offsets{{10, 13}, {13, 14}});
  // A normalizer made "aab" of input "AAB" + 2 inserted bytes: origins 0, 1, 1, 4 (the "a" at 1
  // and the "b" came from input bytes 1..4).
  const NormalizedText word{"aab", {0, 1, 1, 4}};
  CHECK(offsets(*m, word) == Offsets{{0, 1}, {1, 4}});  // a, ab
}

TEST_CASE("bpe model: the vocabulary's lookups and size") {
  const auto m = bpe({}, json{{"a", 0}, {"b", 1}, {"ab", 5}}, json::array({"a b"}));
  CHECK(m->token_to_id("ab") == 5);
  CHECK(!m->token_to_id("ba"));
  CHECK(m->id_to_token(5) == "ab");
  CHECK(!m->id_to_token(2));
  CHECK(m->vocab_size() == 6);  // the largest id + 1
  CHECK(m->description() == "BPE, 3 tokens, 1 merge");
}

TEST_CASE("bpe model: unk_token stands for each unknown character, fuse_unk for each run of them") {
  json vocab = k_vocab;
  vocab["<unk>"] = 7;
  const auto m = bpe({{"unk_token", "<unk>"}}, vocab);
  // x and y are unknown: x ab → <unk> ab; "xyé" is three unknown characters (é is 2 bytes).
  CHECK(ids(*m, "xab") == std::vector<int64_t>{7, 3});
  CHECK(labels(*m, "xab") == std::vector<std::string>{"<unk>", "ab"});
  CHECK(offsets(*m, NormalizedText::of_input("xy\xC3\xA9"
                                             "a")) == Offsets{{0, 1}, {1, 2}, {2, 4}, {4, 5}});
  const auto fused = bpe({{"unk_token", "<unk>"}, {"fuse_unk", true}}, vocab);
  CHECK(ids(*fused,
            "xy\xC3\xA9"
            "ab") == std::vector<int64_t>{7, 3});
  CHECK(offsets(*fused, NormalizedText::of_input("xy\xC3\xA9"
                                                 "ab")) == Offsets{{0, 4}, {4, 6}});
  // Runs apart stay apart.
  CHECK(ids(*fused, "xaxx") == std::vector<int64_t>{7, 0, 7});
}

TEST_CASE(
    "bpe model: byte_fallback spells an unknown character in <0x..> tokens when they all exist") {
  json vocab = k_vocab;
  vocab["<unk>"] = 7;
  vocab["<0xC3>"] = 8;  // é is C3 A9
  vocab["<0xA9>"] = 9;
  vocab["<0xE2>"] = 10;  // € is E2 82 AC: only its first byte has a token
  const auto m = bpe({{"unk_token", "<unk>"}, {"byte_fallback", true}}, vocab);
  CHECK(ids(*m,
            "a\xC3\xA9"
            "b") == std::vector<int64_t>{0, 8, 9, 1});
  CHECK(labels(*m, "\xC3\xA9") == std::vector<std::string>{"<0xC3>", "<0xA9>"});
  CHECK(offsets(*m, NormalizedText::of_input("a\xC3\xA9")) == Offsets{{0, 1}, {1, 2}, {2, 3}});
  // Not every byte of € has a token: the unknown token stands for it.
  CHECK(ids(*m,
            "\xE2\x82\xAC"
            "ab") == std::vector<int64_t>{7, 3});
  // Without an unknown token, nothing stands for it: refused, not dropped.
  const auto no_unk = bpe({{"byte_fallback", true}}, vocab);
  CHECK(error_of([&] { ids(*no_unk, "a\xE2\x82\xAC"); }) ==
        "tok/tokenizer.json: model: the character '\xE2\x82\xAC' (input bytes 1..4) is not in the "
        "vocabulary, nor "
        "are all its byte tokens, and the model has no unk_token");
  // tokenizers would put the bytes of é before the pending <unk> of x: refused.
  CHECK(error_of([&] {
          ids(*m, "x\xC3\xA9");
        }).find("falls back to bytes right after an unknown character") != std::string::npos);
}

TEST_CASE("bpe model: continuing_subword_prefix marks every character but the first") {
  // Merges join a and ##b into "ab" (the prefix of the second part is dropped), ##a ##b into
  // "##ab".
  const json vocab = {{"a", 0}, {"##a", 1}, {"##b", 2}, {"ab", 3}, {"##ab", 4}, {"b", 5}};
  const auto m = bpe({{"continuing_subword_prefix", "##"}}, vocab, {"a ##b", "##a ##b"});
  // "abab" starts as a ##b ##a ##b: (a ##b) rank 0 → ab, (##a ##b) rank 1 → ##ab.
  CHECK(labels(*m, "abab") == std::vector<std::string>{"ab", "##ab"});
  CHECK(offsets(*m, NormalizedText::of_input("abab")) == Offsets{{0, 2}, {2, 4}});
  CHECK(labels(*m, "ba") == std::vector<std::string>{"b", "##a"});  // no (b ##a) merge
}

TEST_CASE("bpe model: end_of_word_suffix marks the last character") {
  const json vocab = {{"a", 0}, {"b", 1}, {"b</w>", 2}, {"ab</w>", 3}, {"ab", 4}};
  const auto m = bpe({{"end_of_word_suffix", "</w>"}}, vocab, {"a b</w>", "a b"});
  CHECK(labels(*m, "ab") == std::vector<std::string>{"ab</w>"});  // a b</w>, merged by rank 0
  // "abb" is a b b</w>: (a b) rank 1 → ab b</w>; (ab b</w>) is no merge.
  CHECK(labels(*m, "abb") == std::vector<std::string>{"ab", "b</w>"});
  CHECK(offsets(*m, NormalizedText::of_input("abb")) == Offsets{{0, 2}, {2, 3}});
}

TEST_CASE("bpe model: ignore_merges takes a word the vocabulary holds whole") {
  const json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"abc", 3}, {"bc", 4}};
  // By merges, "abc" is a bc ((b c) is the only merge); "abc" itself is in the vocabulary.
  CHECK(ids(*bpe({}, vocab, {"b c"}), "abc") == std::vector<int64_t>{0, 4});
  const auto m = bpe({{"ignore_merges", true}}, vocab, {"b c"});
  CHECK(ids(*m, "abc") == std::vector<int64_t>{3});
  CHECK(offsets(*m, NormalizedText::of_input("abc", 2)) == Offsets{{2, 5}});
  CHECK(ids(*m, "bcb") == std::vector<int64_t>{4, 1});  // not whole in the vocabulary: merges
}

TEST_CASE("bpe model: dropout null or 0 is deterministic, any other is refused") {
  CHECK(ids(*bpe({{"dropout", nullptr}}), "abc") == std::vector<int64_t>{5});
  CHECK(ids(*bpe({{"dropout", 0}}), "abc") == std::vector<int64_t>{5});
  CHECK(ids(*bpe({{"dropout", 0.0}}), "abc") == std::vector<int64_t>{5});
  CHECK(error_of([] {
          bpe({{"dropout", 0.1}});
        }) ==
        "tok/tokenizer.json: model.dropout: 0.1 drops merges at random, so a text has no one "
        "tokenization; "
        "attnviz implements only null or 0");
}

TEST_CASE("bpe model: a piece the vocabulary lacks is an error naming it, never dropped") {
  CHECK(error_of([] { ids(*bpe(), "axb"); }) ==
        "tok/tokenizer.json: model: the character 'x' (input bytes 1..2) is not in the vocabulary, "
        "which has no "
        "unk_token");
  // Its input offsets, not its place in the word.
  const auto m = bpe();
  CHECK(error_of([&] { pieces_of(*m, NormalizedText::of_input("a\n", 7)); }) ==
        "tok/tokenizer.json: model: the character '\\n' (input bytes 8..9) is not in the "
        "vocabulary, which has no "
        "unk_token");
  CHECK(error_of([] {
          ids(*bpe({{"unk_token", "<unk>"}}), "x");
        }) ==
        "tok/tokenizer.json: model: the character 'x' (input bytes 0..1) is not in the vocabulary, "
        "and neither is "
        "the unk_token '<unk>'");
}

TEST_CASE("bpe model: merges naming tokens outside the vocabulary are errors naming the merge") {
  CHECK(
      error_of([] {
        bpe({}, k_vocab, {"a b", "a x"});
      }) ==
      "tok/tokenizer.json: model.merges[1]: 'a x': its second token 'x' is not in the vocabulary");
  CHECK(error_of([] {
          bpe({}, k_vocab, json::array({{"y", "b"}}));
        }) ==
        "tok/tokenizer.json: model.merges[0]: 'y b': its first token 'y' is not in the vocabulary");
  CHECK(
      error_of([] { bpe({}, k_vocab, {"b a"}); }) ==
      "tok/tokenizer.json: model.merges[0]: 'b a': the merged token 'ba' is not in the vocabulary");
  CHECK(error_of([] { bpe({}, k_vocab, {"a b c"}); }) ==
        "tok/tokenizer.json: model.merges[0]: expected two tokens separated by one space, got 'a b "
        "c'");
  CHECK(
      error_of([] { bpe({}, k_vocab, {"ab"}); }) ==
      "tok/tokenizer.json: model.merges[0]: expected two tokens separated by one space, got 'ab'");
  CHECK(error_of([] { bpe({}, k_vocab, json::array({json::array({"a"})})); }) ==
        "tok/tokenizer.json: model.merges[0]: expected \"first second\" or [\"first\", "
        "\"second\"], got [\"a\"]");
  CHECK(error_of([] {
          bpe({{"continuing_subword_prefix", "###"}}, k_vocab, {"a b"});
        }) ==
        "tok/tokenizer.json: model.merges[0]: 'a b': the second token is shorter than "
        "continuing_subword_prefix "
        "'###'");
}

TEST_CASE("bpe model: malformed vocabularies and fields are errors naming the field") {
  CHECK(error_of([] {
          make_token_model({{"type", "BPE"}, {"merges", json::array()}}, k_place);
        }) == "tok/tokenizer.json: model.vocab: missing");
  CHECK(error_of([] {
          make_token_model({{"type", "BPE"}, {"vocab", json::object()}}, k_place);
        }) == "tok/tokenizer.json: model.merges: missing");
  CHECK(error_of([] { bpe({}, json::array()); }) ==
        "tok/tokenizer.json: model.vocab: expected an object mapping tokens to ids, got []");
  CHECK(error_of([] { bpe({}, k_vocab, json::object()); }) ==
        "tok/tokenizer.json: model.merges: expected a list of merges, got object");
  CHECK(error_of([] {
          bpe({}, json{{"a", -1}}, json::array());
        }) ==
        "tok/tokenizer.json: model.vocab: token 'a' has id -1, expected a non-negative integer "
        "below 2^31");
  CHECK(error_of([] {
          bpe({}, json{{"a", 0}, {"b", 0}}, json::array());
        }) ==
        "tok/tokenizer.json: model.vocab: tokens 'a' and 'b' both have id 0 (ids must be unique)");
  CHECK(error_of([] {
          bpe({{"fuse_unk", "yes"}});
        }) == "tok/tokenizer.json: model.fuse_unk: expected true or false, got \"yes\"");
  // Old files leave out the type; the merges say it is BPE.
  CHECK(ids(*make_token_model({{"vocab", k_vocab}, {"merges", k_merges}}, k_place), "abc") ==
        std::vector<int64_t>{5});
}

TEST_CASE(
    "bpe core: encoder.py's rounds and tokenizers' queue differ only when a merge's pair ranks "
    "before it") {
  // Symbols a = 0, b = 1, X = ab = 2, V = Xa = 3; ranks: (X a) → V is 0, (a b) → X is 1, so the
  // pair (X a) that merging (a b) forms ranks before it (training never writes such a list).
  BpeMerges merges;
  merges.add(2, 0, 3);
  merges.add(0, 1, 2);
  const std::vector<BpeSymbol> abab = {{0, 1}, {1, 1}, {0, 1}, {1, 1}};
  // encoder.py: the round of (a b) merges both occurrences: X X; (X X) is no merge.
  auto by_round = abab;
  merges.merge_all(by_round, MergeOrder::by_round);
  CHECK(by_round == std::vector<BpeSymbol>{{2, 2}, {2, 2}});
  // tokenizers: (a b) at 0 → X a b; (X a) rank 0 at once → V b; the queued (a b) at 2 is stale.
  auto by_rank = abab;
  merges.merge_all(by_rank, MergeOrder::by_rank);
  CHECK(by_rank == std::vector<BpeSymbol>{{3, 3}, {1, 1}});
}

TEST_CASE("bpe core: the word cache holds 10,000 words under 256 bytes, then keeps what it has") {
  BpeCache cache;
  const std::vector<BpeSymbol> symbols = {{1, 2}, {3, 1}};
  for (int i = 0; i < 10000; ++i) cache.insert("w" + std::to_string(i), symbols);
  cache.insert("one more", symbols);
  CHECK(cache.find("w0") == symbols);
  CHECK(cache.find("w9999") == symbols);
  CHECK(!cache.find("one more"));
  BpeCache fresh;
  fresh.insert(std::string(255, 'a'), symbols);
  fresh.insert(std::string(256, 'a'), symbols);
  CHECK(fresh.find(std::string(255, 'a')) == symbols);
  CHECK(!fresh.find(std::string(256, 'a')));
}

namespace {

// GPT-2's bytes_to_unicode() (encoder.py), written out: printable Latin-1 bytes stand for
// themselves, the other 68 take U+0100 onwards in byte order.
std::string byte_level(std::string_view bytes, std::vector<size_t>& origin, size_t base) {
  static const std::vector<char32_t> table = [] {
    std::vector<char32_t> t(256);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      t[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char32_t cp = table[static_cast<uint8_t>(bytes[i])];
    const size_t before = out.size();
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    for (size_t k = before; k < out.size(); ++k) origin.push_back(base + i);
  }
  return out;
}

const std::filesystem::path k_gpt2 =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/vocab/gpt2";

// GPT-2's vocab.json + merges.txt as a tokenizer.json model: merges as lines.
std::unique_ptr<TokenModel> gpt2_as_tokenizer_json() {
  if (!std::filesystem::exists(k_gpt2 / "vocab.json")) {
    FAIL("GPT-2's vocabulary is missing from " << k_gpt2.string()
                                               << ": run scripts/fetch-vocabularies.sh");
  }
  json merges = json::array();
  std::ifstream in(k_gpt2 / "merges.txt");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) merges.push_back(line);  // the "#version" line is skipped as tokenizers does
  }
  return make_token_model(
      {{"type", "BPE"}, {"vocab", read_json_file(k_gpt2 / "vocab.json")}, {"merges", merges}},
      k_place);
}

// The text through GPT-2's pre-tokenizer, each pre-token in the byte-level alphabet, then the
// model.
std::vector<TokenPiece> encode(const TokenModel& model, std::string_view text) {
  std::vector<TokenPiece> out;
  for (const auto& [begin, end] : gpt2_pretokenize(text, "text")) {
    NormalizedText word;
    word.text = byte_level(text.substr(begin, end - begin), word.origin, begin);
    word.origin.push_back(end);
    model.tokenize(word, out);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "bpe model: GPT-2's vocabulary as tokenizer.json gives gpt-3-encoder's ids and vocab.json's "
    "pieces") {
  const auto model = gpt2_as_tokenizer_json();
  CHECK(model->description() == "BPE, 50257 tokens, 50000 merges");
  CHECK(model->vocab_size() == 50257);
  const auto fixture = read_json_file(std::filesystem::path(ATTNVIZ_SOURCE_DIR) /
                                      "tests/fixtures/tokenizers/gpt2.json");
  REQUIRE(fixture.at("reference").get<std::string>().starts_with("gpt-3-encoder@1.1.4"));
  const auto& fixtures = fixture.at("cases");
  REQUIRE(fixtures.size() >= 100);
  const auto vocab_json = find_tokenizer(k_gpt2);
  REQUIRE(vocab_json);
  auto compare = [&](const std::string& text) {
    const auto pieces = encode(*model, text);
    const auto expected = vocab_json->encode(text, false);
    REQUIRE(pieces.size() == expected.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      CHECK(pieces[i].id == expected[i].id);
      CHECK(pieces[i].begin == expected[i].begin);
      CHECK(pieces[i].end == expected[i].end);
    }
  };
  for (const auto& fixture : fixtures) {
    const auto text = fixture.at("text").get<std::string>();
    CAPTURE(text);
    // The folder's GPT2Tokenizer reads <|endoftext|> as its special token; this bare BPE model has
    // no added tokens.
    if (text.find("<|endoftext|>") != std::string::npos) continue;
    std::vector<int64_t> ids;
    for (const auto& piece : encode(*model, text)) ids.push_back(piece.id);
    CHECK(ids == fixture.at("ids").get<std::vector<int64_t>>());
    compare(text);
  }
  // A longer text: this project's own documentation.
  std::ostringstream docs;
  docs << std::ifstream(std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "ARCHITECTURE.md").rdbuf();
  compare(docs.str());
  // Labels: the token as vocab.json writes it.
  CHECK(encode(*model, " cat").front().label ==
        "\xC4\xA0"
        "cat");  // "Ġcat"
}
