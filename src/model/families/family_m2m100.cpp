// M2M100 and NLLB (Hugging Face M2M100ForConditionalGeneration: facebook/m2m100_418M,
// facebook/nllb-200-distilled-600M; model_type "m2m_100"), as transformers' modeling_m2m_100.py
// computes them: BART's line (bart_line.hpp) with pre-norm layers and each stack's final
// layer_norm, ReLU, embeddings × √d (scale_embedding, true by default), and fairseq's sinusoidal
// positions (M2M100SinusoidalPositionalEmbedding): sines then cosines with ω_i = 10000^(−i/(h−1)),
// counted from pad_token_id + 1, a padding token at the zero row; computed, never stored, and
// grown with the input (no length limit). No final_logits_bias.
#include <algorithm>

#include "attnviz/model/layout_roles.hpp"
#include "bart_line.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout m2m100_layout() {
  Layout l = bart_line_layout("m2m100", "m2m_100");
  std::erase_if(l.roles, [](const RolePattern& r) { return r.role == "unembed.bias"; });
  l.norm_first = true;  // M2M100EncoderLayer: self_attn_layer_norm before self_attn
  l.activation = Activation::relu;
  l.scale_embeddings = true;
  l.positional = Positional::sinusoidal;
  l.sinusoid = SinusoidLayout::fairseq;
  l.positions_after_pad = true;
  l.max_position_keys = {};  // the table grows to the input (make_weights when longer)
  for (const std::string stack : {"encoder", "decoder"}) {
    norm(l.roles, stack + ".final_norm", "model." + stack + ".layer_norm");
    require(l.roles, {stack + ".final_norm.weight", stack + ".final_norm.bias"});
  }
  // M2M100Config's defaults where config.json is silent.
  l.config_defaults = {
      {"num_attention_heads", 16}, {"decoder_start_token_id", 2}, {"pad_token_id", 1}};
  return l;
}

}  // namespace

Family m2m100_record() {
  return Family{.title = "M2M100, NLLB", .layout = m2m100_layout()};
}

}  // namespace attnviz::detail
