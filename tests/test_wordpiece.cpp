// WordPiece, BertProcessing / RobertaProcessing from JSON specs, and BERT's vocab.txt folder
// assembled into a tokenizer: pieces, ids and offsets expected by hand from the greedy
// longest-match-first rule of BERT's WordpieceTokenizer and a hand-written vocabulary.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "attnviz/inputs/tokenizers/wordpiece/bert_tokenizer.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;
using nlohmann::json;

namespace {

const json k_vocab = {{"[UNK]", 0}, {"un", 1},  {"##aff", 2},  {"##able", 3},  {"una", 4},
                      {"##f", 5},   {"aff", 6}, {"\u6211", 7}, {"##\u4eec", 8}};

std::unique_ptr<TokenModel> wordpiece(json spec) {
  static const SpecContext ctx{"tok.json"};
  spec["type"] = "WordPiece";
  return make_token_model(spec, SpecPlace{ctx, "model"});
}

std::vector<TokenPiece> pieces(const TokenModel& model, std::string_view word, size_t base = 0) {
  std::vector<TokenPiece> out;
  model.tokenize(NormalizedText::of_input(word, base), out);
  return out;
}

std::vector<std::string> labels(const std::vector<TokenPiece>& ps) {
  std::vector<std::string> out;
  for (const TokenPiece& p : ps) out.push_back(p.label);
  return out;
}
std::vector<int64_t> ids(const std::vector<TokenPiece>& ps) {
  std::vector<int64_t> out;
  for (const TokenPiece& p : ps) out.push_back(p.id);
  return out;
}
using Span = std::pair<size_t, size_t>;
std::vector<Span> spans(const std::vector<TokenPiece>& ps) {
  std::vector<Span> out;
  for (const TokenPiece& p : ps) out.emplace_back(p.begin, p.end);
  return out;
}
using Labels = std::vector<std::string>;
using Ids = std::vector<int64_t>;

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("wordpiece: greedy longest match first, later pieces with ##") {
  json vocab = k_vocab;
  vocab.erase("una");
  const auto model = wordpiece({{"vocab", vocab}});
  const auto ps = pieces(*model, "unaffable", 10);
  CHECK(labels(ps) == Labels{"un", "##aff", "##able"});
  CHECK(ids(ps) == Ids{1, 2, 3});
  CHECK(spans(ps) == std::vector<Span>{{10, 12}, {12, 15}, {15, 19}});
  // With "una" the longest first piece is taken even though it leaves a worse rest:
  // una, then ##f, ##f, ##able ("##ffable", "##fable" are not pieces).
  const auto greedy = wordpiece({{"vocab", k_vocab}});
  CHECK(labels(pieces(*greedy, "unaffable")) == Labels{"una", "##f", "##f", "##able"});
  // Characters, not bytes: 们 is three bytes, shortened as one.
  CHECK(labels(pieces(*greedy, "\u6211\u4eec")) == Labels{"\u6211", "##\u4eec"});
  CHECK(spans(pieces(*greedy, "\u6211\u4eec")) == std::vector<Span>{{0, 3}, {3, 6}});
}

TEST_CASE("wordpiece: a word no pieces cover, or too long, is one unknown token") {
  const auto model = wordpiece({{"vocab", k_vocab}, {"max_input_chars_per_word", 5}});
  // "un" then "##x…" has no piece: the whole word is [UNK], not un + [UNK].
  const auto bad = pieces(*model, "unx", 4);
  CHECK(labels(bad) == Labels{"[UNK]"});
  CHECK(spans(bad) == std::vector<Span>{{4, 7}});
  CHECK(labels(pieces(*model, "unaff")) == Labels{"una", "##f", "##f"});  // 5 characters: allowed
  CHECK(labels(pieces(*model, "unaffa")) == Labels{"[UNK]"});             // 6 > 5
  CHECK(labels(pieces(*model, "\u6211\u4eec\u4eec")).size() == 3);        // 3 characters, 9 bytes
  // Another unknown token and prefix.
  const auto custom = wordpiece({{"vocab", {{"<unk>", 0}, {"ab", 1}, {"@@c", 2}}},
                                 {"unk_token", "<unk>"},
                                 {"continuing_subword_prefix", "@@"}});
  CHECK(labels(pieces(*custom, "abc")) == Labels{"ab", "@@c"});
  CHECK(labels(pieces(*custom, "abd")) == Labels{"<unk>"});
}

TEST_CASE("wordpiece: vocabulary lookups and refusals") {
  const auto model = wordpiece({{"vocab", k_vocab}});
  CHECK(model->token_to_id("##able") == 3);
  CHECK(model->id_to_token(8) == "##\u4eec");
  CHECK(!model->id_to_token(9));
  CHECK(model->vocab_size() == 9);
  CHECK(model->description() == "WordPiece, 9 tokens");
  const auto no_unk = wordpiece({{"vocab", {{"a", 0}}}});
  CHECK(labels(pieces(*no_unk, "a")) == Labels{"a"});
  CHECK(error_of([&] { pieces(*no_unk, "b"); }) ==
        "tok.json: model: the word 'b' has no pieces in the vocabulary and its unk_token '[UNK]' "
        "is not in the "
        "vocabulary either");
  const SpecContext ctx{"tok.json"};
  CHECK(error_of([&] {
          wordpiece({{"vocab", {{"a", -1}}}});
        }) ==
        "tok.json: model.vocab: token 'a' has id -1, expected a non-negative integer below 2^31");
  CHECK(error_of([&] {
          wordpiece({{"vocab", json::array()}});
        }) == "tok.json: model.vocab: expected an object mapping tokens to ids, got []");
  CHECK(error_of([&] { wordpiece({{"unk_token", "[UNK]"}}); }) == "tok.json: model.vocab: missing");
  // An old file without "type" is recognised by WordPiece's own fields.
  const auto untyped = make_token_model({{"unk_token", "[UNK]"},
                                         {"continuing_subword_prefix", "##"},
                                         {"max_input_chars_per_word", 100},
                                         {"vocab", k_vocab}},
                                        SpecPlace{ctx, "model"});
  CHECK(labels(pieces(*untyped, "aff")) == Labels{"aff"});
}

TEST_CASE("wordpiece: BertProcessing and RobertaProcessing add the special tokens") {
  const SpecContext ctx{"tok.json"};
  const int64_t vocab_size = 103;  // the ids below are [CLS] 101 and [SEP] 102, <s> 0 and </s> 2
  const auto bert = make_post_processor(
      {{"type", "BertProcessing"}, {"sep", {"[SEP]", 102}}, {"cls", {"[CLS]", 101}}},
      SpecPlace{ctx, "post_processor"}, vocab_size);
  const auto out = bert->process({{7, "hi", 0, 2}, {8, "!", 2, 3}}, 3);
  CHECK(ids(out) == Ids{101, 7, 8, 102});
  CHECK(labels(out) == Labels{"[CLS]", "hi", "!", "[SEP]"});
  CHECK(spans(out) == std::vector<Span>{{0, 0}, {0, 2}, {2, 3}, {3, 3}});
  // RoBERTa: the leading space of a byte-level piece leaves its offsets, except a single one at
  // the very start (add_prefix_space); trailing spaces too.
  const auto roberta = make_post_processor({{"type", "RobertaProcessing"},
                                            {"sep", {"</s>", 2}},
                                            {"cls", {"<s>", 0}},
                                            {"trim_offsets", true},
                                            {"add_prefix_space", true}},
                                           SpecPlace{ctx, "post_processor"}, vocab_size);
  const auto r =
      roberta->process({{1, "\u2423hi", 0, 3}, {2, "\u2423cat", 3, 7}, {3, "\u2423  ", 7, 10}}, 10);
  CHECK(ids(r) == Ids{0, 1, 2, 3, 2});
  CHECK(spans(r) == std::vector<Span>{{0, 0}, {0, 3}, {4, 7}, {10, 10}, {10, 10}});
  const auto untrimmed = make_post_processor({{"type", "RobertaProcessing"},
                                              {"sep", {"</s>", 2}},
                                              {"cls", {"<s>", 0}},
                                              {"trim_offsets", false}},
                                             SpecPlace{ctx, "post_processor"}, vocab_size);
  CHECK(spans(untrimmed->process({{2, "\u2423cat", 3, 7}}, 7)) ==
        std::vector<Span>{{0, 0}, {3, 7}, {7, 7}});
  CHECK(error_of([&] {
          make_post_processor({{"type", "BertProcessing"}, {"sep", {"[SEP]", 102}}, {"cls", {101}}},
                              SpecPlace{ctx, "post_processor"}, vocab_size);
        }) ==
        "tok.json: post_processor.cls: expected [token, id] (a string and an integer >= 0), got "
        "[101]");
  CHECK(error_of([&] {
          make_post_processor({{"type", "BertProcessing"}, {"cls", {"[CLS]", 101}}},
                              SpecPlace{ctx, "post_processor"}, vocab_size);
        }) == "tok.json: post_processor.sep: missing");
}

namespace {

// A BERT folder: the five special tokens, then words and pieces (ids by line).
const char* const k_vocab_txt =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n,\nworld\n!\nun\n##aff\n##"
    "able\n\u6211\n\u4eec\nHello\n";

struct BertFolder {
  TempDir dir;
  std::unique_ptr<Tokenizer> tokenizer;
  explicit BertFolder(const std::string& config = "", const std::string& vocab = k_vocab_txt) {
    write(dir / "vocab.txt", vocab);
    if (!config.empty()) write(dir / "tokenizer_config.json", config);
    tokenizer = make_bert_vocab_tokenizer(dir.path());
  }
};

std::vector<TokenPiece> encode(const BertFolder& f, std::string_view text, bool special = true) {
  return f.tokenizer->encode(text, special);
}

}  // namespace

TEST_CASE("wordpiece: BERT's vocab.txt folder, uncased by default") {
  BertFolder f;
  const auto out = encode(f, "H\u00e9llo, WORLD! unaffable");
  CHECK(labels(out) ==
        Labels{"[CLS]", "hello", ",", "world", "!", "un", "##aff", "##able", "[SEP]"});
  CHECK(ids(out) == Ids{2, 5, 6, 7, 8, 9, 10, 11, 3});
  CHECK(spans(out) ==
        std::vector<Span>{
            {0, 0}, {0, 6}, {6, 7}, {8, 13}, {13, 14}, {15, 17}, {17, 20}, {20, 24}, {24, 24}});
  // CJK ideographs are words of their own; an unknown word is [UNK] over it.
  CHECK(labels(encode(f, "\u6211\u4eec zebra", false)) == Labels{"\u6211", "\u4eec", "[UNK]"});
  CHECK(spans(encode(f, "\u6211\u4eec zebra", false)) ==
        std::vector<Span>{{0, 3}, {3, 6}, {7, 12}});
  // The special tokens are matched before normalization, as written only.
  CHECK(labels(encode(f, "[MASK] hello[SEP]", false)) == Labels{"[MASK]", "hello", "[SEP]"});
  // "[mask]" is no special token: [ mask ] are three words, none in the vocabulary.
  CHECK(labels(encode(f, "[mask]", false)) == Labels{"[UNK]", "[UNK]", "[UNK]"});
  CHECK(spans(encode(f, "[mask]", false)) == std::vector<Span>{{0, 1}, {1, 5}, {5, 6}});
  CHECK(f.tokenizer->vocab_size() == 15);
  CHECK(f.tokenizer->label(10) == "##aff");
}

TEST_CASE("wordpiece: tokenizer_config.json's options") {
  BertFolder cased(R"({"do_lower_case": false, "tokenize_chinese_chars": false})");
  CHECK(labels(encode(cased, "Hello hello", false)) == Labels{"Hello", "hello"});
  CHECK(labels(encode(cased, "\u6211\u4eec", false)) == Labels{"[UNK]"});  // one word, no pieces
  // Accents stay in a cased model unless strip_accents says otherwise.
  CHECK(labels(encode(cased, "h\u00e9llo", false)) == Labels{"[UNK]"});
  BertFolder stripped(R"({"do_lower_case": false, "strip_accents": true})");
  CHECK(labels(encode(stripped, "h\u00e9llo", false)) == Labels{"hello"});
  // Other special tokens, written as AddedToken objects.
  BertFolder other(
      R"({"cls_token": {"__type": "AddedToken", "content": "hello"}, "sep_token": "world",
                       "never_split": ["[UNK]"]})");
  CHECK(labels(encode(other, "!")) == Labels{"hello", "!", "world"});
  CHECK(ids(encode(other, "!")) == Ids{5, 8, 7});
}

TEST_CASE("wordpiece: BERT folder refusals and vocab.txt rules") {
  CHECK(error_of([] {
          BertFolder f(R"({"do_lower_case": "yes"})");
        }).find("tokenizer_config.json: do_lower_case: expected true or false, got \"yes\"") !=
        std::string::npos);
  CHECK(error_of([] { BertFolder f(R"({"never_split": ["hello"]})"); })
            .find("tokenizer_config.json: never_split[0]: 'hello' is not a special token of the "
                  "vocabulary") != std::string::npos);
  CHECK(error_of([] {
          BertFolder f(R"({"never_split": "x"})");
        }).find("tokenizer_config.json: never_split: expected a list of strings, got string") !=
        std::string::npos);
  CHECK(error_of([] {
          BertFolder f(R"({"unk_token": 3})");
        }).find("tokenizer_config.json: unk_token: expected a string, got 3") != std::string::npos);
  CHECK(error_of([] { BertFolder f("{"); }).find("tokenizer_config.json") != std::string::npos);
  // Without [CLS] the text still tokenizes, but not with special tokens.
  BertFolder no_cls("", "hello\n[SEP]\n");
  CHECK(ids(encode(no_cls, "hello", false)) == Ids{0});
  CHECK(error_of([&] { encode(no_cls, "hello"); })
            .find("the special token '[CLS]' (tokenizer_config.json's cls_token or the default) is "
                  "not in the vocabulary, so "
                  "[CLS] A [SEP] cannot be made (--no-special-tokens leaves them out)") !=
        std::string::npos);
  CHECK(error_of([] { BertFolder f("", ""); }).find("vocab.txt: missing or empty") !=
        std::string::npos);
  // A token listed twice takes its last line; CRLF lines keep their ids.
  BertFolder twice("", "[CLS]\r\n[SEP]\r\nhello\r\nhello\r\n");
  CHECK(ids(encode(twice, "hello")) == Ids{0, 3, 1});
}

TEST_CASE(
    "wordpiece: tokenizer_config.json's class, basic tokenizer and additional special tokens") {
  // additional_special_tokens the vocabulary has are matched whole, before lowercasing ("Hello" is
  // 14).
  BertFolder extra(R"({"additional_special_tokens": ["Hello", {"content": "我"}]})");
  CHECK(ids(encode(extra, "hello Hello", false)) == Ids{5, 14});
  // A special token the vocabulary lacks: transformers gives it a new id, so a text holding it is
  // refused.
  BertFolder lacking("", "[UNK]\n[CLS]\n[SEP]\nhello\n");
  CHECK(ids(encode(lacking, "hello")) == Ids{1, 3, 2});
  CHECK(error_of([&] { encode(lacking, "hello [MASK]"); }) ==
        (lacking.dir / "vocab.txt").string() +
            ": the text holds '[MASK]' at byte 6, a special token the vocabulary "
            "lacks (transformers would give it a new id, outside the model's table)");
  CHECK(error_of([] { BertFolder f(R"({"tokenizer_class": "BertJapaneseTokenizer"})"); })
            .find("tokenizer_config.json: tokenizer_class: 'BertJapaneseTokenizer' reads vocab.txt "
                  "by its own rules") != std::string::npos);
  CHECK(ids(encode(BertFolder(R"({"tokenizer_class": "DistilBertTokenizerFast"})"), "hello",
                   false)) == Ids{5});
  CHECK(error_of([] { BertFolder f(R"({"do_basic_tokenize": false})"); })
            .find("tokenizer_config.json: do_basic_tokenize: false changes the tokens and attnviz "
                  "implements only true") != std::string::npos);
  CHECK(error_of([] { BertFolder f(R"({"additional_special_tokens": "x"})"); })
            .find("tokenizer_config.json: additional_special_tokens: expected a list of tokens, "
                  "got string") != std::string::npos);
}

TEST_CASE("wordpiece: a vocab.txt as large as BERT's (30,522 lines)") {
  std::string vocab = "[PAD]\n";
  for (int i = 1; i < 100; ++i) vocab += "[unused" + std::to_string(i) + "]\n";
  vocab += "[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
  for (int i = 104; i < 30522; ++i) vocab += "w" + std::to_string(i) + "\n";
  BertFolder f("", vocab);
  CHECK(f.tokenizer->vocab_size() == 30522);
  CHECK(ids(encode(f, "w30521 w104 x")) == Ids{101, 30521, 104, 100, 102});
  CHECK(f.tokenizer->description().find("30522 tokens") != std::string::npos);
}

TEST_CASE("wordpiece: a long word with a hostile max_input_chars_per_word is split in time") {
  // Pieces are never longer than the longest token, so no candidate is: 20,000 "a" give "a" and
  // 19,999 "##a" (before, every candidate to the end of the word was built at every start: n³/3
  // bytes, 2.7·10¹² here, hours; now milliseconds, so a 10 s limit is slack on any loaded machine).
  const auto model = wordpiece(
      {{"vocab", {{"[UNK]", 0}, {"a", 1}, {"##a", 2}}}, {"max_input_chars_per_word", 1000000000}});
  const auto start = std::chrono::steady_clock::now();
  const auto out = pieces(*model, std::string(20000, 'a'));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(out.size() == 20000);
  CHECK(out.front().id == 1);
  CHECK(std::all_of(out.begin() + 1, out.end(), [](const TokenPiece& p) { return p.id == 2; }));
  CHECK(out.back().begin == 19999);
  CHECK_MESSAGE(seconds < 10.0, seconds);
  // The bound ends at a character: the longest token, "xyzzy", is 5 bytes, and byte 5 of "ééé" is
  // inside the third "é" (2 bytes each), so the first candidate is "éé".
  const auto accents =
      wordpiece({{"vocab", {{"[UNK]", 0}, {"\u00e9", 1}, {"##\u00e9", 2}, {"xyzzy", 3}}}});
  CHECK(ids(pieces(*accents, "\u00e9\u00e9\u00e9")) == Ids{1, 2, 2});
}
