// Parts being written (issue 10): each owner deletes its stub here when its file lands.
#include "pipeline_parts.hpp"
#include "spec_fields.hpp"

namespace attnviz {

std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(const nlohmann::json&, const SpecPlace& place) {
  place.fail("ByteLevel pre-tokenizer: not implemented yet");
}
std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(const nlohmann::json&, const SpecPlace& place) {
  place.fail("Split pre-tokenizer: not implemented yet");
}
std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(const nlohmann::json&, const SpecPlace& place) {
  place.fail("Metaspace pre-tokenizer: not implemented yet");
}
std::unique_ptr<PostProcessor> make_template_processing(const nlohmann::json&, const SpecPlace& place,
                                                        const TokenLookup&) {
  place.fail("TemplateProcessing: not implemented yet");
}
std::unique_ptr<PostProcessor> make_byte_level_post_processor(const nlohmann::json&, const SpecPlace& place) {
  place.fail("ByteLevel post-processor: not implemented yet");
}

}  // namespace attnviz
