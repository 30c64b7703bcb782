// tokenizer.json's Metaspace pre-tokenizer (SentencePiece style): spaces become "▁", a "▁" is put
// in front (prepend_scheme), and the text splits before each "▁".
#include <fmt/format.h>

#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "split_behavior.hpp"

namespace attnviz {

namespace {

enum class Prepend { always, first, never };

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}

  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    std::vector<NormalizedText> out;
    for (const NormalizedText& piece : pieces) {
      NormalizedText text = replaced(piece);
      if (!text.text.starts_with(replacement_) &&
          (prepend_ == Prepend::always ||
           (prepend_ == Prepend::first && piece.input_begin() == 0))) {
        text = prepended(text);
      }
      if (!split_) {
        if (!text.text.empty()) out.push_back(std::move(text));
        continue;
      }
      std::vector<std::pair<size_t, size_t>> marks;
      for (size_t at = text.text.find(replacement_); at != std::string::npos;
           at = text.text.find(replacement_, at + replacement_.size())) {
        marks.emplace_back(at, at + replacement_.size());
      }
      for (NormalizedText& part : split_at(text, marks, SplitBehavior::merged_with_next))
        out.push_back(std::move(part));
    }
    return out;
  }

 private:
  NormalizedText replaced(const NormalizedText& piece) const {
    NormalizedBuilder b;
    for (size_t i = 0; i < piece.text.size(); ++i) {
      if (piece.text[i] == ' ') {
        b.append(replacement_, piece.origin[i], piece.origin[i + 1]);
      } else {
        b.append(std::string_view(piece.text).substr(i, 1), piece.origin[i], piece.origin[i + 1]);
      }
    }
    return b.finish(piece.input_end());
  }

  NormalizedText prepended(const NormalizedText& text) const {
    NormalizedText out;
    out.text = replacement_ + text.text;
    out.origin.assign(replacement_.size(), text.input_begin());
    out.origin.insert(out.origin.end(), text.origin.begin(), text.origin.end());
    return out;
  }

  std::string replacement_;
  Prepend prepend_;
  bool split_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(const nlohmann::json& spec,
                                                           const SpecPlace& place) {
  const std::string replacement = spec_string(spec, "replacement", place);
  // tokenizers' Metaspace holds a char: any other length does not load there.
  if (decode_utf8(replacement).size() != 1) {
    place.at("replacement")
        .fail(fmt::format(
            "expected one character, got '{}' ({})", printable_text(replacement),
            count_of(static_cast<long long>(decode_utf8(replacement).size()), "character")));
  }
  Prepend prepend = Prepend::always;
  if (const auto scheme = spec_optional_string(spec, "prepend_scheme", place)) {
    if (*scheme == "always") {
      prepend = Prepend::always;
    } else if (*scheme == "first") {
      prepend = Prepend::first;
    } else if (*scheme == "never") {
      prepend = Prepend::never;
    } else {
      place.at("prepend_scheme")
          .fail(fmt::format("'{}' is not one of always, first, never", *scheme));
    }
  } else {
    // Files written before prepend_scheme existed say add_prefix_space.
    prepend = spec_bool(spec, "add_prefix_space", true, place) ? Prepend::always : Prepend::never;
  }
  return std::make_unique<MetaspacePreTokenizer>(replacement, prepend,
                                                 spec_bool(spec, "split", true, place));
}

}  // namespace attnviz
