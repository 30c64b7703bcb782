// The normalizer of a tokenizer.json, by "type": the Unicode forms, Lowercase, StripAccents,
// Strip, Replace, Prepend, Precompiled (SentencePiece's rules: precompiled_charsmap.hpp), Sequence;
// BertNormalizer has its own file.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/base64.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/char_classes.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/precompiled_charsmap.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "text_transforms.hpp"

namespace attnviz {

namespace {

// The normalized text of one call holds at most 4 × the 8 MiB of text the CLI tokenizes (a Replace
// of " " by "▁" triples a text of spaces); past it a normalizer multiplies the text (a Replace by a
// long string, a Sequence of them), and the Error names it before memory runs out.
constexpr size_t k_max_normalized_bytes = size_t{32} << 20;

void check_normalized_size(size_t bytes, const std::string& where) {
  if (bytes <= k_max_normalized_bytes) return;
  throw Error(fmt::format(
      "{}: the normalized text would pass {} MiB (attnviz's bound: 4 times the 8 MiB of text "
      "it tokenizes); this normalizer multiplies the text",
      where, k_max_normalized_bytes >> 20));
}

// Any normalizer, its output checked against the bound (those that insert text check as they go).
class BoundedNormalizer final : public Normalizer {
 public:
  BoundedNormalizer(std::unique_ptr<Normalizer> part, std::string where)
      : part_(std::move(part)), where_(std::move(where)) {}
  NormalizedText normalize(NormalizedText text) const override {
    NormalizedText out = part_->normalize(std::move(text));
    check_normalized_size(out.text.size(), where_);
    return out;
  }

 private:
  std::unique_ptr<Normalizer> part_;
  std::string where_;  // "FILE: normalizer.normalizers[1]"
};

// A normalizer that is one function of the text.
class FunctionNormalizer final : public Normalizer {
 public:
  explicit FunctionNormalizer(std::function<NormalizedText(const NormalizedText&)> f)
      : f_(std::move(f)) {}
  NormalizedText normalize(NormalizedText text) const override { return f_(text); }

 private:
  std::function<NormalizedText(const NormalizedText&)> f_;
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts)
      : parts_(std::move(parts)) {}
  NormalizedText normalize(NormalizedText text) const override {
    for (const auto& part : parts_) text = part->normalize(std::move(text));
    return text;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

// Strip: white space (Rust's char::is_whitespace) removed from the left and/or the right.
NormalizedText strip(const NormalizedText& text, bool left, bool right) {
  size_t begin = 0, end = text.text.size();
  bool seen_text = false;
  for_each_char(text.text, [&](char32_t cp, size_t at, size_t length) {
    if (is_white_space(cp)) return;
    if (!seen_text) begin = at;
    seen_text = true;
    end = at + length;
  });
  if (!seen_text) begin = end = left ? text.text.size() : 0;
  return text.slice(left ? begin : 0, right ? end : text.text.size());
}

// Replace: each match of the pattern becomes `content`, which comes from the matched bytes.
class ReplaceNormalizer final : public Normalizer {
 public:
  ReplaceNormalizer(UnicodeRegex pattern, std::string content, std::string where)
      : finder_(std::move(pattern)), content_(std::move(content)), where_(std::move(where)) {}
  NormalizedText normalize(NormalizedText text) const override {
    NormalizedText out;
    size_t plain = 0;
    const auto keep = [&](size_t begin, size_t end) {
      out.text.append(text.text, begin, end - begin);
      out.origin.insert(out.origin.end(), text.origin.begin() + static_cast<std::ptrdiff_t>(begin),
                        text.origin.begin() + static_cast<std::ptrdiff_t>(end));
    };
    for (const auto& [begin, end] : finder_.find_all(text.text)) {
      keep(plain, begin);
      check_normalized_size(out.text.size() + content_.size(),
                            where_);  // before the memory is taken
      out.text += content_;
      out.origin.insert(out.origin.end(), content_.size(), text.origin[begin]);
      plain = end;
    }
    keep(plain, text.text.size());
    out.origin.push_back(text.input_end());
    return out;
  }

 private:
  UnicodeRegex finder_;  // errors name "FILE: normalizer.pattern"
  std::string content_;
  std::string where_;  // "FILE: normalizer"
};

std::unique_ptr<Normalizer> make_replace(const nlohmann::json& spec, const SpecPlace& place) {
  const nlohmann::json& pattern = spec_required(spec, "pattern", place);
  const SpecPlace pattern_place = place.at("pattern");
  std::string regex;
  if (pattern.is_object() && pattern.size() == 1 && pattern.contains("String")) {
    regex = regex_escape(spec_string(pattern, "String", pattern_place));
  } else if (pattern.is_object() && pattern.size() == 1 && pattern.contains("Regex")) {
    regex = spec_string(pattern, "Regex", pattern_place);
  } else {
    pattern_place.fail(fmt::format("expected {{\"String\": …}} or {{\"Regex\": …}}, got {}",
                                   printable_text(pattern.dump())));
  }
  const std::string content = spec_string(spec, "content", place);
  return std::make_unique<ReplaceNormalizer>(
      UnicodeRegex(regex, fmt::format("{}: {}", place.ctx.file, pattern_place.where)), content,
      fmt::format("{}: {}", place.ctx.file, place.where));
}

// Prepend: the string before a text that is not empty, as an insertion at its start.
NormalizedText prepend(const NormalizedText& text, const std::string& prefix) {
  if (text.text.empty()) return text;
  NormalizedText out;
  out.text = prefix + text.text;
  out.origin.assign(prefix.size(), text.input_begin());
  out.origin.insert(out.origin.end(), text.origin.begin(), text.origin.end());
  return out;
}

bool required_bool(const nlohmann::json& spec, std::string_view field, const SpecPlace& place) {
  spec_required(spec, field, place);
  return spec_bool(spec, field, false, place);
}

std::unique_ptr<Normalizer> function_normalizer(
    std::function<NormalizedText(const NormalizedText&)> f) {
  return std::make_unique<FunctionNormalizer>(std::move(f));
}

std::unique_ptr<Normalizer> unicode_form(UnicodeForm form) {
  return function_normalizer(
      [form](const NormalizedText& t) { return unicode_normalize(t, form); });
}

// One normalizer other than a Sequence, by "type".
std::unique_ptr<Normalizer> make_part(const std::string& type, const nlohmann::json& spec,
                                      const SpecPlace& place) {
  if (type == "NFC") return unicode_form(UnicodeForm::nfc);
  if (type == "NFD") return unicode_form(UnicodeForm::nfd);
  if (type == "NFKC") return unicode_form(UnicodeForm::nfkc);
  if (type == "NFKD") return unicode_form(UnicodeForm::nfkd);
  if (type == "Lowercase") return function_normalizer(lowercase_text);
  if (type == "StripAccents") {
    // Every combining mark (Mn, Mc, Me: unicode-normalization's is_combining_mark); the text is
    // expected to be decomposed (NFD or NFKD) before it.
    return function_normalizer([](const NormalizedText& t) {
      return map_chars(t, [](char32_t cp, std::string& out) {
        if (!is_combining_mark(cp)) append_utf8(out, cp);
      });
    });
  }
  if (type == "Strip") {
    const bool left = required_bool(spec, "strip_left", place),
               right = required_bool(spec, "strip_right", place);
    return function_normalizer(
        [left, right](const NormalizedText& t) { return strip(t, left, right); });
  }
  if (type == "Replace") return make_replace(spec, place);
  if (type == "Prepend") {
    const std::string prefix = spec_string(spec, "prepend", place);
    return function_normalizer([prefix](const NormalizedText& t) { return prepend(t, prefix); });
  }
  if (type == "BertNormalizer") return make_bert_normalizer(spec, place);
  if (type == "Precompiled") {
    // SentencePiece's normalization rules compiled into a trie; an empty one changes nothing.
    const nlohmann::json& charsmap = spec_required(spec, "precompiled_charsmap", place);
    if (!charsmap.is_string()) {
      place.at("precompiled_charsmap")
          .fail(fmt::format("expected a base64 string, got {}", shown(charsmap)));
    }
    const auto& text = charsmap.get_ref<const std::string&>();
    if (text.empty()) return function_normalizer([](const NormalizedText& t) { return t; });
    const auto bytes = base64_decode(text);
    if (!bytes) {
      place.at("precompiled_charsmap")
          .fail(fmt::format("not base64 ({} characters; expected a multiple of 4 of A–Z, a–z, "
                            "0–9, '+', '/', then up to two '=')",
                            text.size()));
    }
    auto map = std::make_shared<const PrecompiledCharsmap>(
        *bytes, fmt::format("{}: {}", place.ctx.file, place.at("precompiled_charsmap").where));
    return function_normalizer([map](const NormalizedText& t) { return map->normalize(t); });
  }
  place.at("type").fail(
      fmt::format("the normalizer '{}' is not one attnviz implements (NFC, NFD, NFKC, NFKD, "
                  "Lowercase, StripAccents, Strip, Replace, Prepend, BertNormalizer, "
                  "Precompiled, Sequence)",
                  type));
}

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const nlohmann::json& spec, const SpecPlace& place) {
  const std::string type = spec_type(spec, place);
  if (type == "Sequence") {
    const nlohmann::json& list = spec_required(spec, "normalizers", place);
    if (!list.is_array()) place.at("normalizers").fail("expected a list of normalizers");
    std::vector<std::unique_ptr<Normalizer>> parts;
    for (size_t i = 0; i < list.size(); ++i)
      parts.push_back(make_normalizer(list[i], place.at("normalizers").at(i)));
    return std::make_unique<SequenceNormalizer>(std::move(parts));
  }
  return std::make_unique<BoundedNormalizer>(make_part(type, spec, place),
                                             fmt::format("{}: {}", place.ctx.file, place.where));
}

}  // namespace attnviz
