// The attention modules of the tutorials attnviz grew from, by the names their state dicts use: q,
// k, v and out as four nn.Linear modules; the Annotated Transformer's linears.0..3; a single-head,
// nanoGPT-style block with one fused Linear for q, k and v.
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/model/init.hpp"
#include "attnviz/model/init_writer.hpp"
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;
using Json = nlohmann::ordered_json;

const char* const k_title =
    "the tutorials' attention modules: separate q/k/v/out Linears, the Annotated Transformer's "
    "`linears.0..3`, a fused single-head QKV";

// q, k, v (and out unless --no-out-proj) as nn.Linear modules; the token table with a vocabulary.
Json write_mha(InitWriter& w, const InitDims& n, const InitOptions& o) {
  const int d_qk = o.d_qk > 0 ? o.d_qk : n.d, d_v = o.d_v > 0 ? o.d_v : n.d;
  if (d_qk % n.heads || d_v % n.heads) {
    throw usage_error(
        fmt::format("init: --heads {} must divide d_qk = {} and d_v = {}", n.heads, d_qk, d_v));
  }
  w.torch_linear("q", n.d, d_qk);
  w.torch_linear("k", n.d, d_qk);
  w.torch_linear("v", n.d, d_v);
  if (o.out_proj) w.torch_linear("out", d_v, n.d);
  if (n.vocab > 0) w.embedding("embed.weight", n.vocab, n.d, 1.0f);  // nn.Embedding ~ N(0, 1)
  Json c{{"arch", "mha"}, {"d_model", n.d}, {"n_heads", n.heads}, {"d_qk", d_qk}, {"d_v", d_v}};
  if (o.max_positions > 0) c["max_positions"] = o.max_positions;
  return c;
}

}  // namespace

Family qkv_linears_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "qkv-linears",
                            .alias = "seed000",
                            .arch = Arch::mha,
                            .detect = "q.weight",
                            .every_tensor_bound = true},
           .init = FamilyInit{.arch = "mha",
                              .vocabulary = InitVocabulary::optional,
                              .write = write_mha,
                              .head_widths = true,
                              .ffn = false}};
  for (const char* p : {"q", "k", "v", "out"})
    linear(f.layout.roles, std::string("encoder.self.") + p, p);
  add(f.layout.roles, "embed.token", "embed.weight");  // `attnviz init --vocab` adds a table
  return f;
}

// MultiHeadedAttention: clones(nn.Linear(d_model, d_model), 4).
Family annotated_transformer_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "annotated-transformer",
                            .alias = "seed001",
                            .arch = Arch::mha,
                            .detect = "linears.0.weight",
                            .every_tensor_bound = true}};
  const char* parts[] = {"q", "k", "v", "out"};
  for (int i = 0; i < 4; ++i)
    linear(f.layout.roles, std::string("encoder.self.") + parts[i], fmt::format("linears.{}", i));
  return f;
}

// Single-head by construction, which a state dict cannot say.
Family fused_qkv_record() {
  Family f{.title = k_title,
           .layout = Layout{.name = "fused-qkv",
                            .alias = "seed002",
                            .arch = Arch::mha,
                            .detect = "attn.weight",
                            .causal = true,
                            .default_heads = 1,
                            .every_tensor_bound = true,
                            .buffers = {"bias"}}};  // bias: the causal mask
  linear(f.layout.roles, "encoder.self.qkv", "attn");
  return f;
}

}  // namespace attnviz::detail
