// The pre-tokenizer of a tokenizer.json, by "type"; Sequence runs its parts in order.
#include <fmt/format.h>

#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

namespace {

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts)
      : parts_(std::move(parts)) {}
  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    for (const auto& part : parts_) pieces = part->split(std::move(pieces));
    return pieces;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const nlohmann::json& spec,
                                                 const SpecPlace& place) {
  const std::string type = spec_type(spec, place);
  if (type == "Sequence") {
    const nlohmann::json& list = spec_required(spec, "pretokenizers", place);
    if (!list.is_array()) place.at("pretokenizers").fail("expected a list of pre-tokenizers");
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    for (size_t i = 0; i < list.size(); ++i)
      parts.push_back(make_pre_tokenizer(list[i], place.at("pretokenizers").at(i)));
    return std::make_unique<SequencePreTokenizer>(std::move(parts));
  }
  if (type == "ByteLevel") return make_byte_level_pre_tokenizer(spec, place);
  if (type == "Split") return make_split_pre_tokenizer(spec, place);
  if (type == "Metaspace") return make_metaspace_pre_tokenizer(spec, place);
  if (auto word = make_word_pre_tokenizer(type, spec, place)) return word;
  place.at("type").fail(
      fmt::format("the pre-tokenizer '{}' is not one attnviz implements (ByteLevel, Split, "
                  "Metaspace, BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, "
                  "Digits, Sequence)",
                  type));
}

}  // namespace attnviz
