// The built-in layouts: PyTorch's own modules and the tutorials' attention modules, written as
// data, around the model families' tables (their records', src/model/families/).
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

}  // namespace

const std::vector<Layout>& builtin_layouts() {
  // Most specific first: a torch Transformer also has "layers.{i}.linear1" under encoder.
  static const std::vector<Layout> layouts = [] {
    std::vector<Layout> l{torch_transformer(), torch_decoder(), torch_encoder()};
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
