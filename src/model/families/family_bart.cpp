// BART and mBART (Hugging Face BartForConditionalGeneration: facebook/bart-base, bart-large-cnn;
// MBartForConditionalGeneration: mbart-large-50-many-to-many-mmt), as modeling_bart.py and
// modeling_mbart.py compute them: BART's line (bart_line.hpp) with learned positions read from row
// 2 of each stack's own table (BartLearnedPositionalEmbedding's offset), embeddings × √d when
// scale_embedding, each stack's layernorm_embedding after the positions; BART's layers post-norm
// with no final norm, mBART's pre-norm with each stack's final layer_norm; final_logits_bias.
#include "attnviz/model/layout_roles.hpp"
#include "bart_line.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout bart_layout(const std::string& name, bool mbart) {
  Layout l = bart_line_layout(name, name);
  l.positional = Positional::learned;
  l.position_offset = 2;
  l.norm_first = mbart;  // MBartEncoderLayer: self_attn_layer_norm before self_attn
  for (const char* stack : {"encoder", "decoder"}) {
    const std::string p = std::string("model.") + stack + ".";
    add(l.roles, std::string(stack) + ".embed.position", p + "embed_positions.weight");
    norm(l.roles, std::string(stack) + ".embed.norm", p + "layernorm_embedding");
    require(l.roles,
            {std::string(stack) + ".embed.position", std::string(stack) + ".embed.norm.weight",
             std::string(stack) + ".embed.norm.bias"});
    if (mbart) {
      norm(l.roles, std::string(stack) + ".final_norm", p + "layer_norm");
      require(l.roles,
              {std::string(stack) + ".final_norm.weight", std::string(stack) + ".final_norm.bias"});
    }
  }
  // BartConfig's / MBartConfig's defaults where config.json is silent (MBartConfig has no
  // decoder_start_token_id: its labels' shift does not read one).
  l.config_defaults = {{"num_attention_heads", 16}, {"max_position_embeddings", 1024}};
  if (mbart) {
    // modeling_mbart.py's shift_tokens_right: the labels' last token (</s>, or mbart-large-cc25's
    // language code) moved first.
    l.decoder_starts_with_last_label = true;
  } else {
    l.config_defaults.push_back({"decoder_start_token_id", 2});
  }
  return l;
}

}  // namespace

Family bart_record() {
  return Family{.title = "BART, mBART", .layout = bart_layout("bart", false)};
}

Family mbart_record() {
  return Family{.title = "BART, mBART", .layout = bart_layout("mbart", true)};
}

}  // namespace attnviz::detail
