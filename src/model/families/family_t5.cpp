// T5 and Flan-T5 (Hugging Face T5ForConditionalGeneration: t5-small, google/flan-t5-base), as
// transformers' modeling_t5.py computes them: pre-norm layers with T5LayerNorm (RMS, no mean, no
// bias), attention scores q·kᵀ unscaled plus a relative position bias per head (each stack's
// relative_attention_bias in block 0, shared by all its layers: bidirectional buckets in the
// encoder, causal ones in the decoder; none in cross-attention), a final_layer_norm per stack, no
// position embeddings. The feed-forward layer is DenseReluDense (wi, wo: T5 v1.0, feed_forward_proj
// "relu") or gated (wi_0 through the activation times wi_1, then wo: v1.1 and Flan-T5,
// "gated-gelu", which T5Config runs as gelu_new): two records, told apart by their tensors. With
// tie_word_embeddings (v1.0) lm_head is the token table and reads the decoder's output × d^−½.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

// The attention module `name` of block {layer} playing `role`.
void attention(Roles& r, const std::string& role, const std::string& p) {
  for (const char* part : {"q", "k", "v"}) linear(r, role + "." + part, p + part);
  linear(r, role + ".out", p + "o");
}

void stack(Roles& r, const std::string& stack, bool gated) {
  const std::string p = stack + ".block.{layer}.layer.";
  const bool decoder = stack == "decoder";
  attention(r, stack + ".self", p + "0.SelfAttention.");
  norm(r, stack + ".norm_self", p + "0.layer_norm");
  if (decoder) {
    attention(r, stack + ".cross", p + "1.EncDecAttention.");
    norm(r, stack + ".norm_cross", p + "1.layer_norm");
  }
  const std::string f = p + (decoder ? "2" : "1");
  if (gated) {
    linear(r, stack + ".ffn.gate", f + ".DenseReluDense.wi_0");
    linear(r, stack + ".ffn.up", f + ".DenseReluDense.wi_1");
  } else {
    linear(r, stack + ".ffn.up", f + ".DenseReluDense.wi");
  }
  linear(r, stack + ".ffn.down", f + ".DenseReluDense.wo");
  norm(r, stack + ".norm_ffn", f + ".layer_norm");
  norm(r, stack + ".final_norm", stack + ".final_layer_norm");
  add(r, stack + ".self.relative_bias",
      stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight");
}

Layout t5_layout(bool gated) {
  Layout l{.name = gated ? "t5-gated" : "t5",
           .arch = Arch::encoder_decoder,
           .detect = gated ? "encoder.block.{layer}.layer.1.DenseReluDense.wi_0.weight"
                           : "encoder.block.{layer}.layer.1.DenseReluDense.wi.weight",
           .norm_first = true,
           .norm = NormKind::rms_norm,
           .ffn = gated ? FeedForwardKind::gated : FeedForwardKind::plain,
           .activation = Activation::relu,  // T5Config's feed_forward_proj default, "relu"
           .layer_norm_eps = 1e-6f,         // T5Config's layer_norm_epsilon
           .decoder_cross = true,
           .positional = Positional::relative,
           .tied_embeddings = true,  // PretrainedConfig's default; Flan-T5 sets it false
           .every_tensor_bound = true,
           .model_type = "t5"};
  Roles& r = l.roles;
  add(r, "embed.token", "shared.weight");  // both stacks' embed_tokens are tied to it
  add(r, "embed.token", "encoder.embed_tokens.weight");
  add(r, "embed.token", "decoder.embed_tokens.weight");
  add(r, "unembed.weight", "lm_head.weight");
  stack(r, "encoder", gated);
  stack(r, "decoder", gated);
  // Every weight; T5's Linears and norms have no bias.
  for (auto& role : r) {
    const bool weight = role.role.ends_with(".weight");
    role.required = weight && role.pattern.find("{layer}") != std::string::npos;
  }
  require(r, {"embed.token", "encoder.final_norm.weight", "decoder.final_norm.weight",
              "encoder.self.relative_bias", "decoder.self.relative_bias"});
  // Older saves hold a cross-attention bias table that no T5 uses: transformers ignores it on load
  // (T5ForConditionalGeneration._keys_to_ignore_on_load_unexpected).
  l.buffers = {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"};
  l.max_position_keys = {};  // n_positions (512) is a legacy key: no limit but the bias's reach
  l.unscaled_scores = true;
  l.scale_tied_unembedding = true;
  l.activation_keys = {"feed_forward_proj"};
  if (gated) {  // "gated-ACT": the activation on wi_0; "gated-gelu" is gelu_new (T5Config)
    l.activation_values = {{"gated-gelu", Activation::gelu_tanh},
                           {"gated-gelu_new", Activation::gelu_tanh},
                           {"gated-relu", Activation::relu},
                           {"gated-silu", Activation::silu}};
  } else {
    l.activation_values = {{"relu", Activation::relu},
                           {"gelu", Activation::gelu},
                           {"gelu_new", Activation::gelu_tanh},
                           {"silu", Activation::silu}};
  }
  // Newer saves also write T5Config's derived is_gated_act, which transformers then reads as given:
  // it must say what the tensors hold.
  l.refused_keys.push_back(gated ? RefusedKey{"is_gated_act",
                                              "a feed-forward layer without the gate wi_0, while "
                                              "the tensors hold wi_0 and wi_1",
                                              true}
                                 : RefusedKey{"is_gated_act",
                                              "a gated feed-forward layer (wi_0, wi_1), while the "
                                              "tensors hold wi alone",
                                              false});
  l.config_aliases = {{"intermediate_size", {"d_ff"}}};
  // T5Config's default where config.json is silent (its bucket defaults are those of every
  // relative layout: derive_relative_buckets).
  l.config_defaults = {{"num_heads", 8}};
  return l;
}

}  // namespace

Family t5_record() {
  return Family{.title = "T5, Flan-T5", .layout = t5_layout(false)};
}

Family t5_gated_record() {
  return Family{.title = "T5, Flan-T5", .layout = t5_layout(true)};
}

}  // namespace attnviz::detail
