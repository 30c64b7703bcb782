// The pipeline tokenizer on a word-level model written here: added tokens split out first
// (leftmost-longest, lstrip/rstrip, single_word, normalized), the post-processor's template,
// labels and input offsets — each expected value worked by hand.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;

namespace {

// Each pre-token is one token; "?" for a word the vocabulary lacks (a test double, not BPE).
class WordModel final : public TokenModel {
 public:
  explicit WordModel(std::map<std::string, int64_t> vocab) : vocab_(std::move(vocab)) {}
  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    const auto it = vocab_.find(word.text);
    out.push_back(
        {it == vocab_.end() ? -1 : it->second, word.text, word.input_begin(), word.input_end()});
  }
  std::optional<int64_t> token_to_id(std::string_view token) const override {
    const auto it = vocab_.find(std::string(token));
    return it == vocab_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  std::optional<std::string> id_to_token(int64_t id) const override {
    for (const auto& [token, i] : vocab_) {
      if (i == id) return token;
    }
    return std::nullopt;
  }
  int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.size()); }
  std::string description() const override { return "words"; }

 private:
  std::map<std::string, int64_t> vocab_;
};

const SpecContext k_ctx{"tokenizer.json"};

PipelineParts parts_with(
    std::vector<AddedToken> added,
    const std::string& pre = R"({"type":"Split","pattern":{"String":" "},"behavior":"Removed"})") {
  PipelineParts p;
  p.source = "tokenizer.json";
  p.description = "tokenizer.json";
  p.pre_tokenizer =
      make_pre_tokenizer(nlohmann::json::parse(pre), SpecPlace{k_ctx, "pre_tokenizer"});
  p.model = std::make_unique<WordModel>(
      std::map<std::string, int64_t>{{"hello", 5}, {"world", 6}, {"\u2581a", 7}});
  p.added_tokens = std::move(added);
  return p;
}

AddedToken added(int64_t id, std::string content) {
  AddedToken t;
  t.id = id;
  t.content = std::move(content);
  t.special = true;
  return t;
}

std::string show(const std::vector<TokenPiece>& pieces) {
  std::string out;
  for (const TokenPiece& p : pieces)
    out += fmt::format("{}{}:{}@{}..{}", out.empty() ? "" : " ", p.id, p.label, p.begin, p.end);
  return out;
}

}  // namespace

TEST_CASE("added tokens are split out before the pre-tokenizer, longest first") {
  const auto t =
      make_pipeline_tokenizer(parts_with({added(1, "<s>"), added(2, "</s>"), added(3, "<s><s>")}));
  CHECK(show(t->encode("<s>hello world</s>", false)) ==
        "1:<s>@0..3 5:hello@3..8 6:world@9..14 2:</s>@14..18");
  // "<s><s>" is longer than "<s>" at the same place; "<s" alone is text.
  CHECK(show(t->encode("<s><s><s", false)) == "3:<s><s>@0..6 -1:<s@6..8");
  CHECK(t->label(2) == "</s>");
  CHECK(t->label(6) == "world");
  CHECK(t->label(99) == "#99");
  CHECK(t->vocab_size() == 4);  // the model says 3; the added tokens reach id 3, so 4
}

TEST_CASE(
    "lstrip and rstrip take the white space around an added token, single_word needs word "
    "boundaries") {
  AddedToken mask = added(4, "[MASK]");
  mask.lstrip = true;
  mask.rstrip = true;
  AddedToken word = added(8, "hi");
  word.single_word = true;
  const auto t = make_pipeline_tokenizer(parts_with({mask, word}));
  CHECK(show(t->encode("hello  [MASK]  world", false)) ==
        "5:hello@0..5 4:[MASK]@5..15 6:world@15..20");
  // "hi" inside "this" or "hi5" is not the added token; alone it is.
  CHECK(show(t->encode("this hi hi5", false)) == "-1:this@0..4 8:hi@5..7 -1:hi5@8..11");
  // A single_word match refused inside a word hides the tokens overlapping it (tokenizers' search
  // is non-overlapping): "<x>" wins at byte 1 of "a<x>", is refused, and "x>" is not looked for.
  AddedToken whole = added(9, "<x>");
  whole.single_word = true;
  const auto overlap = make_pipeline_tokenizer(parts_with({whole, added(10, "x>")}));
  CHECK(show(overlap->encode("a<x>", false)) == "-1:a<x>@0..4");
  CHECK(show(overlap->encode("a x>", false)) == "-1:a@0..1 10:x>@2..4");
}

TEST_CASE("normalized added tokens are matched after the normalizer, others in the raw text") {
  // A Metaspace pre-tokenizer writes spaces as ▁; an added token "▁a" that is `normalized` would be
  // matched in normalized text, so with no normalizer it is matched as written.
  AddedToken token = added(9, "zz");
  token.normalized = true;
  token.special = false;
  const auto t = make_pipeline_tokenizer(parts_with({token}));
  CHECK(show(t->encode("hellozz world", false)) == "5:hello@0..5 9:zz@5..7 6:world@8..13");
  // One the normalizer empties (a lone combining accent under StripAccents) would match everywhere.
  AddedToken accent = added(10, "\u0301");
  accent.normalized = true;
  PipelineParts parts = parts_with({accent});
  parts.normalizer = make_normalizer(
      nlohmann::json::parse(
          R"({"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"StripAccents"}]})"),
      SpecPlace{k_ctx, "normalizer"});
  CHECK(error_of([&] { make_pipeline_tokenizer(std::move(parts)); }) ==
        "tokenizer.json: the added token '\u0301' (id 10) is normalized to nothing; attnviz does "
        "not implement "
        "matching an empty token");
}

TEST_CASE(
    "the post-processor runs only with add_special, its tokens sit before or after the text") {
  PipelineParts p = parts_with({added(1, "<s>"), added(2, "</s>")});
  p.post_processor = make_post_processor(nlohmann::json::parse(R"({"type":"TemplateProcessing",
      "single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],
      "pair":[], "special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]},"</s>":{"id":"</s>","ids":[2],"tokens":["</s>"]}}})"),
                                         SpecPlace{k_ctx, "post_processor"}, 7);
  const auto t = make_pipeline_tokenizer(std::move(p));
  CHECK(show(t->encode("hello world", true)) ==
        "1:<s>@0..0 5:hello@0..5 6:world@6..11 2:</s>@11..11");
  CHECK(show(t->encode("hello world", false)) == "5:hello@0..5 6:world@6..11");
  CHECK(show(t->encode("", true)) == "1:<s>@0..0 2:</s>@0..0");
}

TEST_CASE("TemplateProcessing refusals name the field") {
  const auto make = [&](const std::string& spec) {
    return make_post_processor(nlohmann::json::parse(spec), SpecPlace{k_ctx, "post_processor"}, 3);
  };
  CHECK(
      error_of([&] {
        make(
            R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{}})");
      }) ==
      "tokenizer.json: post_processor.special_tokens.<s>: the template names this special token, "
      "but "
      "\"special_tokens\" does not list it");
  CHECK(
      error_of([&] {
        make(
            R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}})");
      }) ==
      "tokenizer.json: post_processor.single: the template has no $A: the text would be dropped");
  CHECK(error_of([&] {
          make(R"({"type":"TemplateProcessing","single":[{"Sequence":{"id":"B","type_id":0}}]})");
        }) ==
        "tokenizer.json: post_processor.single[0].Sequence: 'B' in a single-sequence template "
        "(expected A)");
  CHECK(
      error_of([&] {
        make(
            R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1,2],"tokens":["<s>"]}}})");
      }) ==
      "tokenizer.json: post_processor.special_tokens.<s>: expected lists \"ids\" and \"tokens\" of "
      "the same length");
  CHECK(error_of([&] { make(R"({"type":"Fancy"})"); })
            .starts_with("tokenizer.json: post_processor.type: the post-processor 'Fancy' is not "
                         "one attnviz implements"));
}

TEST_CASE("readable labels per vocabulary style") {
  CHECK(readable_label("\u0120cat", LabelStyle::byte_level) ==
        "\u2423cat");  // GPT-2's Ġ is a space
  CHECK(readable_label("\u00e6\u0139", LabelStyle::byte_level) ==
        "<0xE6><0x97>");  // part of a character
  CHECK(readable_label("\u2581cat", LabelStyle::metaspace) == "\u2423cat");
  CHECK(readable_label("\u2581\u2581", LabelStyle::metaspace) == "\u2423\u2423");
  CHECK(readable_label("<0xE7>", LabelStyle::metaspace) == "<0xE7>");
  CHECK(readable_label("##ing", LabelStyle::plain) == "##ing");
  CHECK(readable_label("a\nb", LabelStyle::plain) == "a\\nb");
}
