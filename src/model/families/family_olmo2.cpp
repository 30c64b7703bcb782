// OLMo 2 (Olmo2ForCausalLM, allenai/OLMo-2-*; OLMo et al. 2024), from transformers'
// modeling_olmo2.py: Llama's tensor names and SwiGLU, but no norm before a sublayer: each
// sublayer's output is normalised before the residual add (x + post_attention_layernorm(attn(x)),
// then x + post_feedforward_layernorm(mlp(x))), and q_norm / k_norm are RMSNorms over the whole q
// and k projections (before the heads are split and rotated).
#include <algorithm>

#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

using namespace roles;

Family olmo2_record() {
  Family f{.title = "OLMo 2", .layout = llama_layout("olmo2", "olmo2")};
  Layout& l = f.layout;
  std::erase_if(l.roles, [](const RolePattern& r) {
    return r.role.starts_with("decoder.norm_self") || r.role.starts_with("decoder.norm_ffn");
  });
  const std::string p = "model.layers.{layer}.";
  add(l.roles, "decoder.norm_self_post.weight", p + "post_attention_layernorm.weight");
  add(l.roles, "decoder.norm_ffn_post.weight", p + "post_feedforward_layernorm.weight");
  require(l.roles, {"decoder.norm_self_post.weight", "decoder.norm_ffn_post.weight",
                    "decoder.self.q_norm.weight", "decoder.self.k_norm.weight"});
  l.qk_norm = QkNorm::whole;
  l.layer_norm_eps = 1e-5f;  // Olmo2Config's rms_norm_eps
  // Olmo2Config's defaults beyond the shape (which its files always give).
  l.config_defaults = {
      {"max_position_embeddings", 2048}, {"rope_theta", 10000.0}, {"rms_norm_eps", 1e-5}};
  return f;
}

}  // namespace attnviz::detail
