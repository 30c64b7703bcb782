// The built-in layouts: one table per family of checkpoints, written as data; the Hugging Face
// families' tables are their records' (src/model/families/).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "attnviz/core/error.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/layout_roles.hpp"

namespace attnviz {

namespace roles {

void add(Roles& r, const std::string& role, const std::string& pattern, bool transpose) {
  r.push_back({role, pattern, transpose, false});
}
void require(Roles& r, const std::vector<std::string>& roles, bool required) {
  for (const auto& role : roles) {
    const auto it =
        std::find_if(r.begin(), r.end(), [&](const RolePattern& p) { return p.role == role; });
    if (it == r.end()) throw std::logic_error("layouts.cpp: no role " + role + " to require");
    it->required = required;
  }
}
void linear(Roles& r, const std::string& role, const std::string& name, bool conv1d) {
  add(r, role + ".weight", name + ".weight", conv1d);
  add(r, role + ".bias", name + ".bias");
}
void norm(Roles& r, const std::string& role, const std::string& name) {
  linear(r, role, name);
}

}  // namespace roles

namespace {

using namespace roles;

// nn.MultiheadAttention's own names under `p`: fused in_proj, or separate q/k/v_proj_weight.
void torch_attention(Roles& r, const std::string& module, const std::string& p) {
  add(r, module + ".qkv.weight", p + "in_proj_weight");
  add(r, module + ".qkv.bias", p + "in_proj_bias");
  add(r, module + ".q.weight", p + "q_proj_weight");
  add(r, module + ".k.weight", p + "k_proj_weight");
  add(r, module + ".v.weight", p + "v_proj_weight");
  linear(r, module + ".out", p + "out_proj");
}

// nn.TransformerEncoderLayer / DecoderLayer under `p` ("layers.{layer}."). Every weight is
// required; the biases are not, as the layers' bias=False (PyTorch 2.1) leaves out those of the
// Linears and norms; q/k/v are in_proj_weight or q/k/v_proj_weight, one of which the binder
// requires.
void torch_layer(Roles& r, const std::string& stack, const std::string& p, bool cross) {
  torch_attention(r, stack + ".self", p + "self_attn.");
  linear(r, stack + ".ffn.up", p + "linear1");
  linear(r, stack + ".ffn.down", p + "linear2");
  norm(r, stack + ".norm_self", p + "norm1");
  if (cross) {
    torch_attention(r, stack + ".cross", p + "multihead_attn.");
    norm(r, stack + ".norm_cross", p + "norm2");
    norm(r, stack + ".norm_ffn", p + "norm3");
  } else {
    norm(r, stack + ".norm_ffn", p + "norm2");
  }
  require(r, {stack + ".self.out.weight", stack + ".ffn.up.weight", stack + ".ffn.down.weight",
              stack + ".norm_self.weight", stack + ".norm_ffn.weight"});
  if (cross) require(r, {stack + ".cross.out.weight", stack + ".norm_cross.weight"});
}

// The attention modules of the tutorials attnviz grew from, by the names their state dicts use.
// q/k/v/out as four nn.Linear modules named q, k, v, out (the output projection is optional).
Layout qkv_linears() {
  Layout l{.name = "qkv-linears",
           .alias = "seed000",
           .arch = Arch::mha,
           .detect = "q.weight",
           .every_tensor_bound = true};
  for (const char* p : {"q", "k", "v", "out"}) linear(l.roles, std::string("encoder.self.") + p, p);
  add(l.roles, "embed.token", "embed.weight");  // `attnviz init --vocab` adds a table
  return l;
}

// The Annotated Transformer's MultiHeadedAttention: clones(nn.Linear(d_model, d_model), 4) as
// linears.0..3.
Layout annotated_transformer() {
  Layout l{.name = "annotated-transformer",
           .alias = "seed001",
           .arch = Arch::mha,
           .detect = "linears.0.weight",
           .every_tensor_bound = true};
  const char* parts[] = {"q", "k", "v", "out"};
  for (int i = 0; i < 4; ++i)
    linear(l.roles, std::string("encoder.self.") + parts[i], fmt::format("linears.{}", i));
  return l;
}

// A single-head, nanoGPT-style causal self-attention with one fused Linear `attn` for q, k and v;
// it is single-head by construction, which a state dict cannot say.
Layout fused_qkv() {
  Layout l{.name = "fused-qkv",
           .alias = "seed002",
           .arch = Arch::mha,
           .detect = "attn.weight",
           .causal = true,
           .default_heads = 1,
           .every_tensor_bound = true,
           .buffers = {"bias"}};  // bias: the causal mask
  linear(l.roles, "encoder.self.qkv", "attn");
  return l;
}

Layout torch_mha() {
  Layout l{.name = "torch-mha",
           .arch = Arch::mha,
           .detect = "out_proj.weight",
           .every_tensor_bound = true};
  torch_attention(l.roles, "encoder.self", "");
  return l;
}

Layout torch_encoder() {
  // Every tensor bound: a decoder's file whose layer 0 lacks multihead_attn.out_proj is not run as
  // an encoder with its cross-attention ignored.
  Layout l{.name = "torch-encoder",
           .arch = Arch::encoder,
           .detect = "layers.{layer}.linear1.weight",
           .every_tensor_bound = true};
  torch_layer(l.roles, "encoder", "layers.{layer}.", false);
  norm(l.roles, "encoder.final_norm",
       "norm");  // optional: nn.TransformerEncoder's norm defaults to None
  return l;
}

Layout torch_decoder() {
  Layout l{.name = "torch-decoder",
           .arch = Arch::decoder,
           .detect = "layers.{layer}.multihead_attn.out_proj.weight",
           .causal = true,
           .decoder_cross = true,
           .every_tensor_bound = true};
  torch_layer(l.roles, "decoder", "layers.{layer}.", true);
  norm(l.roles, "decoder.final_norm",
       "norm");  // optional: nn.TransformerDecoder's norm defaults to None
  return l;
}

Layout torch_transformer() {
  Layout l{.name = "torch-transformer",
           .arch = Arch::encoder_decoder,
           .detect = "decoder.layers.{layer}.multihead_attn.out_proj.weight",
           .decoder_cross = true,
           .every_tensor_bound = true};
  torch_layer(l.roles, "encoder", "encoder.layers.{layer}.", false);
  torch_layer(l.roles, "decoder", "decoder.layers.{layer}.", true);
  norm(l.roles, "encoder.final_norm", "encoder.norm");
  norm(l.roles, "decoder.final_norm", "decoder.norm");
  require(l.roles,
          {"encoder.final_norm.weight", "decoder.final_norm.weight"});  // nn.Transformer makes both
  return l;
}

// GPT-2 blocks as nanoGPT (nn.Linear) or Hugging Face (Conv1D, stored transposed) name them.
Layout gpt_family(const std::string& name, bool conv1d) {
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
  if (conv1d) l.model_type = "gpt2";
  l.tied_embeddings =
      true;  // GPT2LMHeadModel and nanoGPT predict with wte (tie_word_embeddings defaults true)
  return l;
}

Layout bert() {
  Layout l{.name = "bert",
           .arch = Arch::encoder,
           .detect = "encoder.layer.{layer}.attention.self.query.weight",
           .activation = Activation::gelu,
           .layer_norm_eps = 1e-12f,
           .positional = Positional::learned,
           .model_type = "bert"};
  l.prefixes = {"bert.", ""};
  add(l.roles, "embed.token", "embeddings.word_embeddings.weight");
  add(l.roles, "embed.position", "embeddings.position_embeddings.weight");
  add(l.roles, "embed.token_type", "embeddings.token_type_embeddings.weight");
  norm(l.roles, "embed.norm", "embeddings.LayerNorm");
  const std::string p = "encoder.layer.{layer}.";
  linear(l.roles, "encoder.self.q", p + "attention.self.query");
  linear(l.roles, "encoder.self.k", p + "attention.self.key");
  linear(l.roles, "encoder.self.v", p + "attention.self.value");
  linear(l.roles, "encoder.self.out", p + "attention.output.dense");
  norm(l.roles, "encoder.norm_self", p + "attention.output.LayerNorm");
  linear(l.roles, "encoder.ffn.up", p + "intermediate.dense");
  linear(l.roles, "encoder.ffn.down", p + "output.dense");
  norm(l.roles, "encoder.norm_ffn", p + "output.LayerNorm");
  for (auto& r : l.roles) r.required = true;  // BertModel has every one, biases included
  return l;
}

}  // namespace

const std::vector<Layout>& builtin_layouts() {
  // Most specific first: a torch Transformer also has "layers.{i}.linear1" under encoder.
  static const std::vector<Layout> layouts = [] {
    std::vector<Layout> l{
        torch_transformer(),          torch_decoder(), torch_encoder(), gpt_family("gpt2", true),
        gpt_family("nanogpt", false), bert()};
    for (const auto& f : families()) l.push_back(f.layout);
    for (auto&& last : {torch_mha(), annotated_transformer(), fused_qkv(), qkv_linears()})
      l.push_back(last);
    return l;
  }();
  return layouts;
}

const Layout& layout_by_name(const std::string& name) {
  std::string known;
  for (const auto& l : builtin_layouts()) {
    if (l.name == name || (!l.alias.empty() && l.alias == name)) return l;
    known += (known.empty() ? "" : ", ") + l.name;
  }
  throw usage_error(fmt::format("--layout {}: unknown layout (known: {})", name, known));
}

}  // namespace attnviz
