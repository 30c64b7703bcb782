// GPT-2 (Hugging Face GPT2Model / GPT2LMHeadModel: Conv1D weights stored [in, out]) and nanoGPT
// (Karpathy's model.py: the same blocks as nn.Linear, biases optional): learned positions, pre-norm
// LayerNorm, GELU, fused c_attn, the unembedding tied to wte.
#include <fmt/format.h>

#include "attnviz/model/init_writer.hpp"
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;
using Json = nlohmann::ordered_json;

Layout gpt_layout(const std::string& name, bool conv1d) {
  Layout l{.name = name,
           .arch = Arch::decoder,
           .detect = "h.{layer}.attn.c_attn.weight",
           .detect_fused = conv1d ? FusedShape::cols : FusedShape::rows,
           .norm_first = true,
           .activation = conv1d ? Activation::gelu_tanh : Activation::gelu,
           .causal = true,
           .positional = Positional::learned};
  l.prefixes = {"transformer.", ""};
  add(l.roles, "embed.token", "wte.weight");
  add(l.roles, "embed.position", "wpe.weight");
  const std::string p = "h.{layer}.";
  norm(l.roles, "decoder.norm_self", p + "ln_1");
  linear(l.roles, "decoder.self.qkv", p + "attn.c_attn", conv1d);
  linear(l.roles, "decoder.self.out", p + "attn.c_proj", conv1d);
  norm(l.roles, "decoder.norm_ffn", p + "ln_2");
  linear(l.roles, "decoder.ffn.up", p + "mlp.c_fc", conv1d);
  linear(l.roles, "decoder.ffn.down", p + "mlp.c_proj", conv1d);
  norm(l.roles, "decoder.final_norm", "ln_f");
  // Every weight, and for GPT-2 every bias (Conv1D and LayerNorm always have one); nanoGPT's biases
  // are optional (GPTConfig(bias=False) has none). The unembedding is optional: tied to wte.
  for (auto& r : l.roles) r.required = conv1d || r.role.ends_with(".weight");
  // GPT2LMHeadModel and nanoGPT predict with wte (tie_word_embeddings defaults true).
  l.tied_embeddings = true;
  return l;
}

// The blocks and ln_f under `p`: Hugging Face's Conv1D (N(0, 0.02), zero biases) or nanoGPT's
// nn.Linear (PyTorch's own init).
void write_blocks(InitWriter& w, const InitDims& n, const std::string& p, bool conv1d) {
  const auto linear = [&](const std::string& name, int in, int out) {
    conv1d ? w.hf_conv1d(name, in, out) : w.torch_linear(name, in, out);
  };
  for (int l = 0; l < n.layers; ++l) {
    const std::string h = fmt::format("{}h.{}.", p, l);
    w.layer_norm(h + "ln_1", n.d);
    linear(h + "attn.c_attn", n.d, 3 * n.d);
    linear(h + "attn.c_proj", n.d, n.d);
    w.layer_norm(h + "ln_2", n.d);
    linear(h + "mlp.c_fc", n.d, n.d_ff);
    linear(h + "mlp.c_proj", n.d_ff, n.d);
  }
  w.layer_norm(p + "ln_f", n.d);
}

// GPT2Model's checkpoint (wpe N(0, 0.01)); config.json as GPT2Config names it.
Json write_gpt2(InitWriter& w, const InitDims& n, const InitOptions&) {
  w.embedding("wte.weight", n.vocab, n.d, 0.02f);
  w.embedding("wpe.weight", n.positions, n.d, 0.01f);
  write_blocks(w, n, "", true);
  return Json{{"model_type", "gpt2"},       {"n_embd", n.d},
              {"n_head", n.heads},          {"n_layer", n.layers},
              {"n_positions", n.positions}, {"n_inner", n.d_ff},
              {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"},
              {"vocab_size", n.vocab}};
}

// nanoGPT's state dict, the token table only with a vocabulary.
Json write_nanogpt(InitWriter& w, const InitDims& n, const InitOptions&) {
  if (n.vocab > 0) w.embedding("transformer.wte.weight", n.vocab, n.d, 0.02f);
  w.embedding("transformer.wpe.weight", n.positions, n.d, 0.02f);
  write_blocks(w, n, "transformer.", false);
  return Json{{"arch", "decoder"}, {"n_heads", n.heads}, {"n_layer", n.layers}};
}

}  // namespace

Family gpt2_record() {
  Family f{.title = "GPT-2", .layout = gpt_layout("gpt2", true)};
  f.layout.model_type = "gpt2";
  // GPT-2 adds no special token around a text; <|endoftext|> ends one.
  f.init = FamilyInit{.vocabulary = InitVocabulary::tokenizer_default,
                      .write = write_gpt2,
                      .special_tokens = {"<|endoftext|>"},
                      .eos = "<|endoftext|>"};
  return f;
}

// `init --arch decoder`: the tutorials' decoder-only transformer, in nanoGPT's names.
Family nanogpt_record() {
  Family f{.title = "nanoGPT", .layout = gpt_layout("nanogpt", false)};
  f.init =
      FamilyInit{.arch = "decoder", .vocabulary = InitVocabulary::optional, .write = write_nanogpt};
  return f;
}

}  // namespace attnviz::detail
