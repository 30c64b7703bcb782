// The model of a tokenizer.json, by "type".
#include <fmt/format.h>

#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

std::unique_ptr<TokenModel> make_token_model(const nlohmann::json& spec, const SpecPlace& place) {
  // Old files leave out the model's type: BPE is recognised by its merges, WordPiece by its
  // continuing_subword_prefix and max_input_chars_per_word, as tokenizers' untagged reading does.
  std::string type;
  if (spec.is_object() && !spec.contains("type") && spec.contains("merges")) {
    type = "BPE";
  } else if (spec.is_object() && !spec.contains("type") &&
             spec.contains("continuing_subword_prefix") &&
             spec.contains("max_input_chars_per_word")) {
    type = "WordPiece";
  } else {
    type = spec_type(spec, place);
  }
  if (type == "BPE") return make_bpe_model(spec, place);
  if (type == "WordLevel") return make_word_level_model(spec, place);
  if (type == "WordPiece") return make_wordpiece_model(spec, place);
  if (type == "Unigram") return make_unigram_model(spec, place);
  place.at("type").fail(fmt::format(
      "the model '{}' is not one attnviz implements (BPE, WordPiece, Unigram, WordLevel)", type));
}

}  // namespace attnviz
