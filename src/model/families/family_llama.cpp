// Llama (LlamaForCausalLM; Llama 3.2's settings for init) and the tensor names the other families
// keep.
#include <algorithm>

#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

using namespace roles;

// Hugging Face's LlamaForCausalLM names, which Mistral, Qwen2/3, Gemma 1/2/3 and Phi-3 keep (Gemma
// 3's multimodal checkpoints put them under "language_model."). A per-head q_norm / k_norm (Qwen3,
// Gemma 3) and biases (Qwen2's q/k/v) are bound when the tensors are there; the families that
// always have them require them. Required as in llama.cpp's loader: the token table, the norms,
// q/k/v/o and the FFN; optional: lm_head (tie_word_embeddings) and the biases (Llama's
// attention_bias / mlp_bias, checked against config.json).
Layout llama_layout(const std::string& name, const std::string& model_type) {
  Layout l{.name = name,
           .arch = Arch::decoder,
           .detect = "model.layers.{layer}.self_attn.o_proj.weight",
           .norm_first = true,
           .norm = NormKind::rms_norm,
           .ffn = FeedForwardKind::gated,
           .activation = Activation::silu,
           .layer_norm_eps = 1e-6f,
           .causal = true,
           .positional = Positional::rotary,
           .every_tensor_bound = true,
           .buffers = {"model.layers.{layer}.self_attn.rotary_emb.inv_freq",
                       "model.rotary_emb.inv_freq"},
           .model_type = model_type};
  l.prefixes = {"", "language_model."};
  add(l.roles, "embed.token", "model.embed_tokens.weight");
  add(l.roles, "unembed.weight", "lm_head.weight");
  const std::string p = "model.layers.{layer}.", a = p + "self_attn.";
  norm(l.roles, "decoder.norm_self", p + "input_layernorm");
  for (const char* r : {"q", "k", "v"})
    linear(l.roles, std::string("decoder.self.") + r, a + r + "_proj");
  linear(l.roles, "decoder.self.out", a + "o_proj");
  add(l.roles, "decoder.self.q_norm.weight", a + "q_norm.weight");
  add(l.roles, "decoder.self.k_norm.weight", a + "k_norm.weight");
  norm(l.roles, "decoder.norm_ffn", p + "post_attention_layernorm");
  for (const char* r : {"gate", "up", "down"}) {
    linear(l.roles, std::string("decoder.ffn.") + r, p + "mlp." + r + "_proj");
  }
  norm(l.roles, "decoder.final_norm", "model.norm");
  require(l.roles, {"embed.token", "decoder.norm_self.weight", "decoder.self.q.weight",
                    "decoder.self.k.weight", "decoder.self.v.weight", "decoder.self.out.weight",
                    "decoder.norm_ffn.weight", "decoder.ffn.gate.weight", "decoder.ffn.up.weight",
                    "decoder.ffn.down.weight", "decoder.final_norm.weight"});
  return l;
}

void replace_mlp_with_experts(Layout& l, const std::string& router, const std::string& expert,
                              const std::vector<std::string>& parts) {
  std::erase_if(l.roles, [](const RolePattern& r) {
    return r.role.starts_with("decoder.ffn.gate") || r.role.starts_with("decoder.ffn.up") ||
           r.role.starts_with("decoder.ffn.down");
  });
  add(l.roles, "decoder.ffn.router.weight", router);
  const char* roles[] = {"decoder.ffn.experts.gate.weight", "decoder.ffn.experts.up.weight",
                         "decoder.ffn.experts.down.weight"};
  for (size_t i = 0; i < 3; ++i) add(l.roles, roles[i], expert + parts.at(i) + ".weight");
  require(l.roles, {"decoder.ffn.router.weight", roles[0], roles[1], roles[2]});
}

Family llama_record() {
  Family f{.title = "Llama 2 / 3 / 3.1 / 3.2", .layout = llama_layout("llama", "llama")};
  // convert_hf_to_gguf.py's LlamaModel: q/k permuted, Llama 3's rope_freqs, the vocabulary size
  // and rotary width written.
  f.gguf = {.arch = "llama",
            .permuted_qk = true,
            .rope_freqs = true,
            .written_keys = {{"vocab_size", "vocab_size"}, {"rope.dimension_count", "head_dim"}}};
  // Llama 3.2's config.json.
  f.init = FamilyInit{
      .hf_class = "LlamaForCausalLM",
      .config = {{"rope_theta", 500000.0},
                 {"tie_word_embeddings", true},
                 {"rope_scaling", nlohmann::ordered_json{{"factor", 32.0},
                                                         {"high_freq_factor", 4.0},
                                                         {"low_freq_factor", 1.0},
                                                         {"original_max_position_embeddings", 8192},
                                                         {"rope_type", "llama3"}}}},
      .special_tokens = {"<|begin_of_text|>", "<|end_of_text|>"},
      .bos = "<|begin_of_text|>",
      .eos = "<|end_of_text|>"};
  return f;
}

}  // namespace attnviz::detail
