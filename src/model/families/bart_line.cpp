// The roles and config keys of BART's line of encoder-decoders (see bart_line.hpp).
#include "bart_line.hpp"

#include "attnviz/model/layout_roles.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

// One attention module under `p` (self_attn., encoder_attn.).
void attention(Roles& r, const std::string& module, const std::string& p) {
  for (const char* part : {"q", "k", "v"}) linear(r, module + "." + part, p + part + "_proj");
  linear(r, module + ".out", p + "out_proj");
}

// An encoder (or, with `cross`, decoder) layer under `p`; the norms after or before each sub-layer
// as the record's norm_first says.
void layer(Roles& r, const std::string& stack, const std::string& p, bool cross) {
  attention(r, stack + ".self", p + "self_attn.");
  norm(r, stack + ".norm_self", p + "self_attn_layer_norm");
  if (cross) {
    attention(r, stack + ".cross", p + "encoder_attn.");
    norm(r, stack + ".norm_cross", p + "encoder_attn_layer_norm");
  }
  linear(r, stack + ".ffn.up", p + "fc1");
  linear(r, stack + ".ffn.down", p + "fc2");
  norm(r, stack + ".norm_ffn", p + "final_layer_norm");
}

}  // namespace

Layout bart_line_layout(const std::string& name, const std::string& model_type) {
  Layout l{.name = name,
           .arch = Arch::encoder_decoder,
           .detect = "model.decoder.layers.{layer}.encoder_attn.k_proj.weight",
           .activation = Activation::gelu,  // the config classes' activation_function default
           .layer_norm_eps = 1e-5f,         // nn.LayerNorm's default: the configs have no eps
           .decoder_cross = true,
           .tied_embeddings = true,
           .every_tensor_bound = true,
           .model_type = model_type,
           .needs_model_type = true};
  Roles& r = l.roles;
  // model.shared is the table; the stacks' embed_tokens are tied to it (older saves hold them all).
  add(r, "embed.token", "model.shared.weight");
  add(r, "embed.token", "model.encoder.embed_tokens.weight");
  add(r, "embed.token", "model.decoder.embed_tokens.weight");
  add(r, "unembed.weight", "lm_head.weight");
  add(r, "unembed.bias", "final_logits_bias");
  layer(r, "encoder", "model.encoder.layers.{layer}.", false);
  layer(r, "decoder", "model.decoder.layers.{layer}.", true);
  // Every layer tensor, biases included.
  for (auto& role : r) role.required = role.pattern.find("{layer}") != std::string::npos;
  require(r, {"embed.token"});
  l.config_aliases = {
      {"num_attention_heads", {"encoder_attention_heads", "decoder_attention_heads"}},
      {"intermediate_size", {"encoder_ffn_dim", "decoder_ffn_dim"}},
      {"scale_embeddings", {"scale_embedding"}},
  };
  return l;
}

}  // namespace attnviz::detail
