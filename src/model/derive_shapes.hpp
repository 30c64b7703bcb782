// The widths and head counts of a model from the shapes of its first layer's tensors, checked
// against what config.json declares (private to src/model/).
#pragma once

#include <string>
#include <vector>

#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "binder.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// Dimension `dim` of the matrix bound to `role`, divided by `divisor`: the tensor must be a matrix
// and the width fit in int and be > 0 (a zero d_k makes every score 0 / sqrt(0), every map NaN).
int width(const Binder& b, const std::string& role, size_t dim, int64_t divisor = 1);

// Rows of the k and v projections, read before the number of heads is known.
struct KeyValueRows {
  int k = 0, v = 0;
};

// d_model, kdim, vdim, d_qk and d_v from `module`'s q/k/v (fused or separate) projections.
KeyValueRows derive_widths(Config& c, const Binder& b, const std::string& module,
                           const ConfigSources& cfg);
// Self-attention's keys and values read the d_model-wide input of its queries (inside layers).
void check_self_widths(const Config& c, const Binder& b, const std::string& module);
// d_ff from the up projection of `module` ("decoder.ffn", or an expert's "decoder.ffn.experts"),
// or half of Phi-3's fused gate_up_proj.
void derive_ffn_width(Config& c, const Binder& b, const std::string& module);
// A mixture of experts, when the layout maps a router: the experts the file holds (as many as the
// router scores, and as config.json declares), how many run per token (required) and whether their
// weights are renormalised; d_ff from expert 0.
void derive_experts(Config& c, const Binder& b, const Layout& layout, const ConfigSources& cfg,
                    const std::string& stack);
// n_heads from the config (or the layout's default), n_kv_heads from k's shape, checked against
// num_key_value_heads and head_dim.
void derive_heads(Config& c, const Layout& layout, const ConfigSources& cfg, const Binder& b,
                  const std::string& module, KeyValueRows rows);
// A declared value (under any of `keys`) must equal `actual`, what the weights give; `evidence`
// says which tensor gives it ("d_ff, from tensor 'h.0.mlp.c_fc.weight' of shape [32, 128]"). An
// error names both: the file and key of the value, and the tensor.
void check_declared(const ConfigSources& cfg, const std::vector<std::string>& keys, int64_t actual,
                    const std::string& evidence);

}  // namespace attnviz::detail
