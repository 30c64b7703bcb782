// The post-processor of a tokenizer.json, by "type"; Sequence runs its parts in order.
#include <fmt/format.h>

#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

namespace {

class SequencePostProcessor final : public PostProcessor {
 public:
  explicit SequencePostProcessor(std::vector<std::unique_ptr<PostProcessor>> parts)
      : parts_(std::move(parts)) {}
  std::vector<TokenPiece> process(std::vector<TokenPiece> pieces, size_t text_end) const override {
    for (const auto& part : parts_) pieces = part->process(std::move(pieces), text_end);
    return pieces;
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

}  // namespace

void check_special_id(uint64_t id, int64_t vocab_size, const SpecPlace& place) {
  // tokenizers takes any u32 here, but the model has no row for an id past its vocabulary.
  if (id < static_cast<uint64_t>(vocab_size)) return;
  place.fail(
      fmt::format("id {} is outside the vocabulary ({} ids: the model's and the added tokens')", id,
                  vocab_size));
}

std::unique_ptr<PostProcessor> make_post_processor(const nlohmann::json& spec,
                                                   const SpecPlace& place, int64_t vocab_size) {
  const std::string type = spec_type(spec, place);
  if (type == "Sequence") {
    const nlohmann::json& list = spec_required(spec, "processors", place);
    if (!list.is_array()) place.at("processors").fail("expected a list of post-processors");
    std::vector<std::unique_ptr<PostProcessor>> parts;
    for (size_t i = 0; i < list.size(); ++i) {
      parts.push_back(make_post_processor(list[i], place.at("processors").at(i), vocab_size));
    }
    return std::make_unique<SequencePostProcessor>(std::move(parts));
  }
  if (type == "TemplateProcessing") return make_template_processing(spec, place, vocab_size);
  if (type == "ByteLevel") return make_byte_level_post_processor(spec, place);
  if (type == "BertProcessing") return make_bert_processing(spec, place, vocab_size);
  if (type == "RobertaProcessing") return make_roberta_processing(spec, place, vocab_size);
  place.at("type").fail(
      fmt::format("the post-processor '{}' is not one attnviz implements (TemplateProcessing, "
                  "ByteLevel, BertProcessing, RobertaProcessing, Sequence)",
                  type));
}

}  // namespace attnviz
