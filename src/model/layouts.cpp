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

std::vector<RefusedKey> common_refused_keys() {
  // Set (not null, false, 0, 1 or an empty list), each changes the maps in a way no built-in
  // family computes.
  return {
      {"attention_chunk_size", "chunked attention (Llama 4)"},
      {"no_rope_layers", "layers without rotary positions (Llama 4, SmolLM3)"},
      {"use_bidirectional_attention", "bidirectional attention in a decoder"},
      {"embedding_multiplier", "Granite's embedding multiplier"},
      {"attention_multiplier", "Granite's attention multiplier"},
      {"residual_multiplier", "Granite's residual multiplier"},
      {"logits_scaling", "Granite's logits scaling"},
      {"clip_qkv", "clipped q/k/v (OLMo, DBRX)"},
      {"use_parallel_residual", "parallel attention and MLP (GPT-NeoX)"},
      {"qk_layernorm", "q/k LayerNorm (Persimmon)"},
      {"num_experts", "mixture-of-experts layers"},
      {"num_local_experts", "mixture-of-experts layers"},
      {"shared_expert_intermediate_size", "a shared expert beside the routed ones (Qwen2-MoE)"},
  };
}

const std::vector<Layout>& builtin_layouts() {
  static const std::vector<Layout> layouts = [] {
    std::vector<Layout> l;
    for (const auto& f : families()) l.push_back(f.layout);
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
