// GPT-NeoX (GPTNeoXForCausalLM: Pythia, RedPajama-INCITE; Black et al. 2022), from transformers'
// modeling_gpt_neox.py: pre-LayerNorm layers whose attention and MLP both read the layer's input
// and are added to it together (use_parallel_residual, the default; else one after the other), a
// fused query_key_value whose rows are grouped per head ([heads, 3, head_size]), rotary positions
// on the first int(head_size · rotary_pct) dims of each head (rotate-half, base rotary_emb_base),
// scores scaled by head_size^−½, erf GELU, a final layer norm and an untied embed_out.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

using namespace roles;

Family gpt_neox_record() {
  Layout l{.name = "gpt_neox",
           .arch = Arch::decoder,
           .detect = "gpt_neox.layers.{layer}.attention.query_key_value.weight",
           .norm_first = true,
           .norm = NormKind::layer_norm,
           .ffn = FeedForwardKind::plain,
           .activation = Activation::gelu,
           .layer_norm_eps = 1e-5f,
           .causal = true,
           .positional = Positional::rotary,
           .partial_rotary_factor = 0.25f,
           .every_tensor_bound = true,
           // Older saves hold the causal mask, its fill value and the rotary frequencies.
           .buffers = {"gpt_neox.layers.{layer}.attention.bias",
                       "gpt_neox.layers.{layer}.attention.masked_bias",
                       "gpt_neox.layers.{layer}.attention.rotary_emb.inv_freq",
                       "gpt_neox.rotary_emb.inv_freq"},
           .model_type = "gpt_neox",
           .parallel_residual = true,
           .parallel_residual_keys = {"use_parallel_residual"},
           .fused_qkv_per_head = true};
  add(l.roles, "embed.token", "gpt_neox.embed_in.weight");
  add(l.roles, "unembed.weight", "embed_out.weight");
  const std::string p = "gpt_neox.layers.{layer}.";
  norm(l.roles, "decoder.norm_self", p + "input_layernorm");
  add(l.roles, "decoder.self.qkv.weight", p + "attention.query_key_value.weight");
  add(l.roles, "decoder.self.qkv.bias", p + "attention.query_key_value.bias");
  linear(l.roles, "decoder.self.out", p + "attention.dense");
  norm(l.roles, "decoder.norm_ffn", p + "post_attention_layernorm");
  linear(l.roles, "decoder.ffn.up", p + "mlp.dense_h_to_4h");
  linear(l.roles, "decoder.ffn.down", p + "mlp.dense_4h_to_h");
  norm(l.roles, "decoder.final_norm", "gpt_neox.final_layer_norm");
  require(l.roles,
          {"embed.token", "unembed.weight", "decoder.norm_self.weight", "decoder.self.qkv.weight",
           "decoder.self.out.weight", "decoder.norm_ffn.weight", "decoder.ffn.up.weight",
           "decoder.ffn.down.weight", "decoder.final_norm.weight"});
  // GPTNeoXConfig reads rotary_emb_base and rotary_pct (transformers 5: rope_parameters); the
  // rope_theta and partial_rotary_factor that 4.45–4.57 save beside them are copies it overwrites.
  l.rope_theta_keys = {"rotary_emb_base", "rope_parameters.rope_theta"};
  l.rotary_share_keys = {"rotary_pct", "rope_parameters.partial_rotary_factor"};
  // GPTNeoXConfig's defaults beyond the shape (which its files always give).
  l.config_defaults = {{"rotary_pct", 0.25},
                       {"rotary_emb_base", 10000.0},
                       {"max_position_embeddings", 2048},
                       {"layer_norm_eps", 1e-5}};
  // It reads use_parallel_residual, which every other family refuses.
  std::erase_if(l.refused_keys,
                [](const RefusedKey& r) { return r.key == "use_parallel_residual"; });
  return Family{.title = "GPT-NeoX, Pythia", .layout = l};
}

}  // namespace attnviz::detail
