// tokenizer.json's Split pre-tokenizer: a pattern (a literal string or a regex) and what happens
// to its matches (Llama 3 and Qwen split with their regex, behavior Isolated).
#include <fmt/format.h>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "split_behavior.hpp"

namespace attnviz {

namespace {

class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(std::optional<UnicodeRegex> regex, std::string literal, SplitBehavior behavior,
                    bool invert)
      : regex_(std::move(regex)),
        literal_(std::move(literal)),
        behavior_(behavior),
        invert_(invert) {}

  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    std::vector<NormalizedText> out;
    for (const NormalizedText& piece : pieces) {
      for (NormalizedText& part : split_at(piece, matches(piece.text), behavior_, invert_))
        out.push_back(std::move(part));
    }
    return out;
  }

 private:
  std::vector<std::pair<size_t, size_t>> matches(std::string_view text) const {
    if (regex_) return regex_->find_all(text);
    std::vector<std::pair<size_t, size_t>> found;
    if (literal_.empty()) return found;
    for (size_t at = text.find(literal_); at != std::string_view::npos;
         at = text.find(literal_, at + literal_.size())) {
      found.emplace_back(at, at + literal_.size());
    }
    return found;
  }

  std::optional<UnicodeRegex> regex_;
  std::string literal_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(const nlohmann::json& spec,
                                                       const SpecPlace& place) {
  const nlohmann::json& pattern = spec_required(spec, "pattern", place);
  const SpecPlace pattern_place = place.at("pattern");
  std::optional<UnicodeRegex> regex;
  std::string literal;
  if (pattern.is_object() && pattern.size() == 1 && pattern.contains("Regex")) {
    regex.emplace(spec_string(pattern, "Regex", pattern_place),
                  fmt::format("{}: {}.Regex", place.ctx.file, pattern_place.where));
  } else if (pattern.is_object() && pattern.size() == 1 && pattern.contains("String")) {
    literal = spec_string(pattern, "String", pattern_place);
  } else {
    pattern_place.fail(fmt::format("expected {{\"String\": …}} or {{\"Regex\": …}}, got {}",
                                   printable_text(pattern.dump().substr(0, 80))));
  }
  return std::make_unique<SplitPreTokenizer>(std::move(regex), std::move(literal),
                                             read_split_behavior(spec, place),
                                             spec_bool(spec, "invert", false, place));
}

}  // namespace attnviz
