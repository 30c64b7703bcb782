// PyTorch's own modules by their state dicts' names: nn.MultiheadAttention, nn.TransformerEncoder,
// nn.TransformerDecoder and nn.Transformer (sinusoidal positions, added by the caller in PyTorch's
// tutorials, are the records' default here).
#include <fmt/format.h>

#include "attnviz/model/init.hpp"
#include "attnviz/model/init_writer.hpp"
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;
using Json = nlohmann::ordered_json;

const char* const k_title =
    "PyTorch `nn.MultiheadAttention`, `nn.TransformerEncoder` / `Decoder`, `nn.Transformer`";

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

// nn.MultiheadAttention's parameters under `p` (fused in_proj), as PyTorch initialises them.
void write_attention(InitWriter& w, const std::string& p, int d) {
  w.torch_linear(p + "in_proj", d, 3 * d, "_");
  w.torch_linear(p + "out_proj", d, d);
}

void write_layer(InitWriter& w, const std::string& p, const InitDims& n, bool cross) {
  write_attention(w, p + "self_attn.", n.d);
  if (cross) write_attention(w, p + "multihead_attn.", n.d);
  w.torch_linear(p + "linear1", n.d, n.d_ff);
  w.torch_linear(p + "linear2", n.d_ff, n.d);
  for (int i = 1; i <= (cross ? 3 : 2); ++i) w.layer_norm(fmt::format("{}norm{}", p, i), n.d);
}

// nn.TransformerEncoder (with its final norm), or with `both` nn.Transformer; config.json holds
// what the state dict cannot say.
Json write_torch(InitWriter& w, const InitDims& n, const InitOptions& o, bool both) {
  for (int l = 0; l < n.layers; ++l) {
    write_layer(w, fmt::format("{}layers.{}.", both ? "encoder." : "", l), n, false);
  }
  w.layer_norm(both ? "encoder.norm" : "norm", n.d);
  if (both) {
    for (int l = 0; l < n.layers; ++l)
      write_layer(w, fmt::format("decoder.layers.{}.", l), n, true);
    w.layer_norm("decoder.norm", n.d);
  }
  Json c{{"arch", o.arch},       {"n_heads", n.heads},     {"norm_first", o.norm_first},
         {"activation", "relu"}, {"layer_norm_eps", 1e-5}, {"positional", "sinusoidal"},
         {"pe_base", 10000.0}};
  if (o.max_positions > 0) c["max_positions"] = o.max_positions;
  return c;
}

Json write_encoder(InitWriter& w, const InitDims& n, const InitOptions& o) {
  return write_torch(w, n, o, false);
}
Json write_transformer(InitWriter& w, const InitDims& n, const InitOptions& o) {
  return write_torch(w, n, o, true);
}

// init's nn.Transformer* modules: no token table (PyTorch keeps nn.Embedding outside them).
FamilyInit torch_init(const char* arch, decltype(FamilyInit::write) write) {
  return FamilyInit{
      .arch = arch, .vocabulary = InitVocabulary::none, .write = write, .norm_first = true};
}

}  // namespace

Family torch_mha_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "torch-mha",
                            .arch = Arch::mha,
                            .detect = "out_proj.weight",
                            .every_tensor_bound = true}};
  torch_attention(f.layout.roles, "encoder.self", "");
  return f;
}

Family torch_encoder_record() {
  // Every tensor bound: a decoder's file whose layer 0 lacks multihead_attn.out_proj is not run as
  // an encoder with its cross-attention ignored.
  Family f{.title = k_title,
           .layout = Layout{.name = "torch-encoder",
                            .arch = Arch::encoder,
                            .detect = "layers.{layer}.linear1.weight",
                            .every_tensor_bound = true},
           .init = torch_init("encoder", write_encoder)};
  torch_layer(f.layout.roles, "encoder", "layers.{layer}.", false);
  // Optional: nn.TransformerEncoder's norm defaults to None.
  norm(f.layout.roles, "encoder.final_norm", "norm");
  return f;
}

Family torch_decoder_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "torch-decoder",
                            .arch = Arch::decoder,
                            .detect = "layers.{layer}.multihead_attn.out_proj.weight",
                            .causal = true,
                            .decoder_cross = true,
                            .every_tensor_bound = true}};
  torch_layer(f.layout.roles, "decoder", "layers.{layer}.", true);
  // Optional: nn.TransformerDecoder's norm defaults to None.
  norm(f.layout.roles, "decoder.final_norm", "norm");
  return f;
}

Family torch_transformer_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "torch-transformer",
                            .arch = Arch::encoder_decoder,
                            .detect = "decoder.layers.{layer}.multihead_attn.out_proj.weight",
                            .decoder_cross = true,
                            .every_tensor_bound = true},
           .init = torch_init("encoder-decoder", write_transformer)};
  Roles& r = f.layout.roles;
  torch_layer(r, "encoder", "encoder.layers.{layer}.", false);
  torch_layer(r, "decoder", "decoder.layers.{layer}.", true);
  norm(r, "encoder.final_norm", "encoder.norm");
  norm(r, "decoder.final_norm", "decoder.norm");
  require(r, {"encoder.final_norm.weight", "decoder.final_norm.weight"});  // nn.Transformer's
  return f;
}

}  // namespace attnviz::detail
