// The pre-tokenizers that split text into words by character class, as tokenizers' do:
// BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/pipeline/char_classes.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "split_behavior.hpp"

namespace attnviz {

namespace {

// Splits each piece at the characters `accepts` takes, which become what `behavior` says.
class CharSplitPreTokenizer final : public PreTokenizer {
 public:
  CharSplitPreTokenizer(std::function<bool(char32_t)> accepts, SplitBehavior behavior)
      : accepts_(std::move(accepts)), behavior_(behavior) {}
  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    return split_each(
        std::move(pieces), [this](std::string_view text) { return char_matches(text, accepts_); },
        behavior_);
  }

 private:
  std::function<bool(char32_t)> accepts_;
  SplitBehavior behavior_;
};

// BertPreTokenizer: white space removed, then every punctuation character a word of its own.
class BertPreTokenizer final : public PreTokenizer {
 public:
  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    return punctuation_.split(white_space_.split(std::move(pieces)));
  }

 private:
  CharSplitPreTokenizer white_space_{is_white_space, SplitBehavior::removed};
  CharSplitPreTokenizer punctuation_{is_bert_punctuation, SplitBehavior::isolated};
};

// Whitespace: the words of `\w+|[^\w\s]+` in Rust's regex crate, where \w is Unicode's word
// characters (Alphabetic, marks, decimal digits, connector punctuation, Join_Control) and \s
// White_Space; everything between the matches (white space) is dropped.
class WhitespacePreTokenizer final : public PreTokenizer {
 public:
  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    return split_each(
        std::move(pieces),
        [this](std::string_view text) {
          return regex_spans(text.size(), words_.find_all(text), true);
        },
        SplitBehavior::removed);
  }

 private:
  static std::string pattern() {
    const std::string word = R"(\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D})";
    const std::string space =
        R"(\t-\r\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";
    return fmt::format("[{0}]+|[^{0}{1}]+", word, space);
  }
  UnicodeRegex words_{pattern(), "the Whitespace pre-tokenizer"};
};

}  // namespace

std::unique_ptr<PreTokenizer> make_word_pre_tokenizer(const std::string& type,
                                                      const nlohmann::json& spec,
                                                      const SpecPlace& place) {
  if (type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (type == "Whitespace") return std::make_unique<WhitespacePreTokenizer>();
  if (type == "WhitespaceSplit")
    return std::make_unique<CharSplitPreTokenizer>(is_white_space, SplitBehavior::removed);
  if (type == "Punctuation") {
    SplitBehavior behavior = SplitBehavior::isolated;
    if (const auto it = spec.find("behavior"); it != spec.end() && !it->is_null()) {
      behavior = split_behavior_of(*it, place.at("behavior"));
    }
    // Rust's is_ascii_punctuation or a Unicode category P*: the same class as BERT's.
    return std::make_unique<CharSplitPreTokenizer>(is_bert_punctuation, behavior);
  }
  if (type == "Digits") {
    // Rust's char::is_numeric (Nd, Nl, No): each digit alone, or runs of digits kept together.
    const bool individual = spec_bool(spec, "individual_digits", false, place);
    return std::make_unique<CharSplitPreTokenizer>(
        is_numeric_char, individual ? SplitBehavior::isolated : SplitBehavior::contiguous);
  }
  return nullptr;
}

}  // namespace attnviz
