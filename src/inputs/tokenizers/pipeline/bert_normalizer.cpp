// BertNormalizer of tokenizers (BERT's BasicTokenizer before it splits): control characters
// removed and white space made ' ', spaces around CJK ideographs, accents stripped, lowercase.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/char_classes.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "text_transforms.hpp"

namespace attnviz {

namespace {

class BertNormalizer final : public Normalizer {
 public:
  explicit BertNormalizer(const BertNormalizerOptions& options) : options_(options) {}

  NormalizedText normalize(NormalizedText text) const override {
    if (options_.clean_text) text = clean(text);
    if (options_.handle_chinese_chars) text = space_cjk(text);
    // strip_accents left null follows lowercase, as in BERT's uncased models.
    if (options_.strip_accents.value_or(options_.lowercase)) text = strip_accents(text);
    if (options_.lowercase) text = lowercase_text(text);
    return text;
  }

 private:
  // NUL, U+FFFD and control, format and private-use characters (Cc, Cf, Co; but not \t \n \r)
  // removed; white space becomes ' '.
  static NormalizedText clean(const NormalizedText& text) {
    return map_chars(text, [](char32_t cp, std::string& out) {
      const bool control = cp != '\t' && cp != '\n' && cp != '\r' && is_other_char(cp);
      if (cp == 0 || cp == 0xFFFD || control) return;
      if (is_white_space(cp)) {
        out += ' ';
      } else {
        append_utf8(out, cp);
      }
    });
  }

  // " 我 ": the spaces are inserted before and after the ideograph, which keeps its own bytes.
  static NormalizedText space_cjk(const NormalizedText& text) {
    NormalizedBuilder builder;
    for_each_char(text.text, [&](char32_t cp, size_t at, size_t length) {
      const size_t begin = text.origin[at], end = text.origin[at + length];
      const std::string_view bytes = std::string_view(text.text).substr(at, length);
      if (!is_cjk_ideograph(cp)) {
        builder.append(bytes, begin, end);
        return;
      }
      builder.append(" ", begin, begin);
      builder.append(bytes, begin, end);
      builder.append(" ", end, end);
    });
    return builder.finish(text.input_end());
  }

  // NFD, then the non-spacing marks (category Mn) removed.
  static NormalizedText strip_accents(const NormalizedText& text) {
    return map_chars(unicode_normalize(text, UnicodeForm::nfd), [](char32_t cp, std::string& out) {
      if (!is_nonspacing_mark(cp)) append_utf8(out, cp);
    });
  }

  BertNormalizerOptions options_;
};

}  // namespace

std::unique_ptr<Normalizer> make_bert_normalizer(const BertNormalizerOptions& options) {
  return std::make_unique<BertNormalizer>(options);
}

std::unique_ptr<Normalizer> make_bert_normalizer(const nlohmann::json& spec,
                                                 const SpecPlace& place) {
  BertNormalizerOptions options;
  options.clean_text = spec_bool(spec, "clean_text", true, place);
  options.handle_chinese_chars = spec_bool(spec, "handle_chinese_chars", true, place);
  if (const auto it = spec.find("strip_accents"); it != spec.end() && !it->is_null()) {
    options.strip_accents = spec_bool(spec, "strip_accents", false, place);
  }
  options.lowercase = spec_bool(spec, "lowercase", true, place);
  return make_bert_normalizer(options);
}

}  // namespace attnviz
