// Gemma 2 (Gemma2ForCausalLM) and the block Gemma 3 shares: embeddings · sqrt(d_model), RMSNorm
// gains (1 + w), GeGLU (tanh GELU), the sandwich norms, and soft-capped scores and logits.
#include <algorithm>

#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

using namespace roles;

// post_attention_layernorm normalises the attention output and pre_feedforward_layernorm the FFN
// input.
Layout gemma_layout(const std::string& name, const std::string& model_type, SlidingLayers sliding) {
  Layout l = llama_layout(name, model_type);
  l.activation = Activation::gelu_tanh;
  l.scale_embeddings = true;
  l.tied_embeddings = true;
  l.norm_offset = 1.0f;
  l.sliding = sliding;
  l.activation_keys = {"activation",
                       "hidden_activation"};  // Gemma2MLP: ACT2FN[config.hidden_activation]
  // Gemma2Config / Gemma3TextConfig's own defaults.
  l.config_defaults = {{"sliding_window", 4096}, {"query_pre_attn_scalar", 256}};
  std::erase_if(l.roles,
                [](const RolePattern& r) { return r.role.starts_with("decoder.norm_ffn"); });
  const std::string p = "model.layers.{layer}.";
  add(l.roles, "decoder.norm_self_post.weight", p + "post_attention_layernorm.weight");
  add(l.roles, "decoder.norm_ffn.weight", p + "pre_feedforward_layernorm.weight");
  add(l.roles, "decoder.norm_ffn_post.weight", p + "post_feedforward_layernorm.weight");
  // The sandwich's four norms are every Gemma layer's.
  require(l.roles, {"decoder.norm_self.weight", "decoder.norm_self_post.weight",
                    "decoder.norm_ffn.weight", "decoder.norm_ffn_post.weight"});
  return l;
}

// The sandwich in llama.cpp: FFN_NORM is pre_feedforward_layernorm, ATTN_POST_NORM
// post_attention_layernorm.
std::vector<GgufNameRule> gemma_gguf_names() {
  return {{"ffn_norm", "pre_feedforward_layernorm"},
          {"post_attention_norm", "post_attention_layernorm"},
          {"post_ffw_norm", "post_feedforward_layernorm"}};
}

Family gemma2_record() {
  Family f{.title = "Gemma 1, Gemma 2, Gemma 3",
           .layout = gemma_layout("gemma2", "gemma2", SlidingLayers::even)};
  f.layout.config_defaults.insert(
      f.layout.config_defaults.end(),
      {{"attn_logit_softcapping", 50.0}, {"final_logit_softcapping", 30.0}});
  // llama_hparams' defaults: n_swa 4096, soft-caps 50 and 30; the 27B model (46 layers) scales by
  // n_embd / n_head.
  f.gguf = {
      .arch = "gemma2",
      .layer_names = gemma_gguf_names(),
      .keys = {"attention.sliding_window", "attn_logit_softcapping", "final_logit_softcapping"},
      .constants = {{"sliding_window", 4096},
                    {"attn_logit_softcapping", 50.0},
                    {"final_logit_softcapping", 30.0}},
      .wide_scale_layers = 46,
      .written_keys = {{"attn_logit_softcapping", "attn_logit_softcapping", true},
                       {"final_logit_softcapping", "final_logit_softcapping", true},
                       {"attention.sliding_window", "sliding_window"}}};
  f.init = FamilyInit{.hf_class = "Gemma2ForCausalLM",
                      .config = {{"hidden_activation", "gelu_pytorch_tanh"},
                                 {"hidden_act", "gelu_pytorch_tanh"},
                                 {"rms_norm_eps", 1e-6},
                                 {"tie_word_embeddings", true},
                                 {"max_position_embeddings", 8192},
                                 {"sliding_window", 4096},
                                 {"attn_logit_softcapping", 50.0},
                                 {"final_logit_softcapping", 30.0},
                                 {"query_pre_attn_scalar", nullptr, InitConfigKey::From::head_dim}},
                      .sandwich_norms = true,
                      .special_tokens = {"<pad>", "<eos>", "<bos>"},
                      .bos = "<bos>",
                      .eos = "<eos>"};
  return f;
}

}  // namespace attnviz::detail
