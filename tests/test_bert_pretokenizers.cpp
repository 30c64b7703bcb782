// The word pre-tokenizers of tokenizer.json (BertPreTokenizer, Whitespace, WhitespaceSplit,
// Punctuation with each split behaviour, Digits), built from JSON specs: the words and their
// input bytes expected by hand from tokenizers' documentation and BERT's character classes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using nlohmann::json;

namespace {

std::vector<NormalizedText> pre_tokens(const json& spec, std::string_view input) {
  const SpecContext ctx{"tok.json"};
  return make_pre_tokenizer(spec, SpecPlace{ctx, "pre_tokenizer"})
      ->split({NormalizedText::of_input(input)});
}

std::vector<std::string> words(const json& spec, std::string_view input) {
  std::vector<std::string> out;
  for (const NormalizedText& t : pre_tokens(spec, input)) out.push_back(t.text);
  return out;
}

using Words = std::vector<std::string>;
using Span = std::pair<size_t, size_t>;

std::vector<Span> spans(const json& spec, std::string_view input) {
  std::vector<Span> out;
  for (const NormalizedText& t : pre_tokens(spec, input))
    out.emplace_back(t.input_begin(), t.input_end());
  return out;
}

}  // namespace

TEST_CASE("bert pre-tokenizers: BertPreTokenizer drops white space and isolates punctuation") {
  const json bert = {{"type", "BertPreTokenizer"}};
  CHECK(words(bert, "hello, world!") == Words{"hello", ",", "world", "!"});
  CHECK(spans(bert, "hello, world!") == std::vector<Span>{{0, 5}, {5, 6}, {7, 12}, {12, 13}});
  // ASCII symbols count as punctuation in BERT ($ is Sc, + Sm, ^ Sk, ` Sk), each its own word.
  CHECK(words(bert, "a$b+c^^d`") == Words{"a", "$", "b", "+", "c", "^", "^", "d", "`"});
  // Unicode punctuation (¿ Po, — Pd, « Pi) but not other symbols (€ Sc, © So).
  CHECK(words(bert, "\u00bfqu\u00e9\u2014\u00abx\u20ac\u00a9") ==
        Words{"\u00bf", "qu\u00e9", "\u2014", "\u00ab", "x\u20ac\u00a9"});
  // White_Space beyond ASCII: NO-BREAK SPACE and IDEOGRAPHIC SPACE split; ZERO WIDTH SPACE does
  // not.
  CHECK(words(bert, "a\u00a0b\u3000c\u200bd") == Words{"a", "b", "c\u200bd"});
  CHECK(words(bert, "  \t ").empty());
}

TEST_CASE("bert pre-tokenizers: Whitespace keeps runs of word characters and runs of the rest") {
  const json ws = {{"type", "Whitespace"}};
  // tokenizers' documented example.
  CHECK(words(ws, "Hey man!! How's it going?") ==
        Words{"Hey", "man", "!!", "How", "'", "s", "it", "going", "?"});
  // Combining marks and digits are word characters; "_" (Pc) too.
  CHECK(words(ws, "cafe\u0301 x_1 \u0968\u0966") == Words{"cafe\u0301", "x_1", "\u0968\u0966"});
  CHECK(spans(ws, " ab ,. ") == std::vector<Span>{{1, 3}, {4, 6}});
}

TEST_CASE("bert pre-tokenizers: WhitespaceSplit splits on white space only") {
  CHECK(words({{"type", "WhitespaceSplit"}}, "Hey man!!  How's\nit") ==
        Words{"Hey", "man!!", "How's", "it"});
}

TEST_CASE("bert pre-tokenizers: Punctuation with each split behaviour") {
  const auto with = [](const char* behavior) {
    return json{{"type", "Punctuation"}, {"behavior", behavior}};
  };
  const std::string text = "the-final--countdown";
  // The examples of tokenizers' SplitDelimiterBehavior documentation.
  CHECK(words(with("Removed"), text) == Words{"the", "final", "countdown"});
  CHECK(words(with("Isolated"), text) == Words{"the", "-", "final", "-", "-", "countdown"});
  CHECK(words(with("MergedWithPrevious"), text) == Words{"the-", "final-", "-", "countdown"});
  CHECK(words(with("MergedWithNext"), text) == Words{"the", "-final", "-", "-countdown"});
  CHECK(words(with("Contiguous"), text) == Words{"the", "-", "final", "--", "countdown"});
  CHECK(words({{"type", "Punctuation"}}, "a,b") == Words{"a", ",", "b"});  // Isolated by default
  CHECK(words(with("MergedWithNext"), "-a-") == Words{"-a", "-"});
  CHECK(words(with("MergedWithPrevious"), "-a-") == Words{"-", "a-"});
  const SpecContext ctx{"tok.json"};
  CHECK(error_of([&] {
          make_pre_tokenizer(with("Sideways"), SpecPlace{ctx, "pre_tokenizer"});
        }) ==
        "tok.json: pre_tokenizer.behavior: expected Removed, Isolated, MergedWithPrevious, "
        "MergedWithNext or "
        "Contiguous, got \"Sideways\"");
}

TEST_CASE("bert pre-tokenizers: Digits keeps runs of digits together or splits each") {
  CHECK(words({{"type", "Digits"}, {"individual_digits", false}}, "Call 123 please") ==
        Words{"Call ", "123", " please"});
  CHECK(words({{"type", "Digits"}, {"individual_digits", true}}, "Call 123 please") ==
        Words{"Call ", "1", "2", "3", " please"});
  // Rust's is_numeric: Devanagari digits (Nd), Roman numerals (Nl), ½ (No).
  CHECK(words({{"type", "Digits"}, {"individual_digits", true}}, "x\u0968\u2163\u00bd") ==
        Words{"x", "\u0968", "\u2163", "\u00bd"});
}

TEST_CASE("bert pre-tokenizers: in a Sequence, and the refused ones") {
  const json seq = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "WhitespaceSplit"}}, {{"type", "Digits"}, {"individual_digits", true}}}}};
  CHECK(words(seq, "ab12 c3") == Words{"ab", "1", "2", "c", "3"});
  CHECK(spans(seq, "ab12 c3") == std::vector<Span>{{0, 2}, {2, 3}, {3, 4}, {5, 6}, {6, 7}});
  const SpecContext ctx{"tok.json"};
  CHECK(error_of([&] {
          make_pre_tokenizer({{"type", "CharDelimiterSplit"}}, SpecPlace{ctx, "pre_tokenizer"});
        })
            .find("tok.json: pre_tokenizer.type: the pre-tokenizer 'CharDelimiterSplit' is not one "
                  "attnviz "
                  "implements") == 0);
  CHECK(error_of([&] {
          make_pre_tokenizer({{"type", "Digits"}, {"individual_digits", 1}},
                             SpecPlace{ctx, "pre_tokenizer"});
        }) == "tok.json: pre_tokenizer.individual_digits: expected true or false, got 1");
}
