// Qwen3-MoE (Qwen3MoeForCausalLM: Qwen3-30B-A3B, Qwen3-235B-A22B), from transformers'
// modeling_qwen3_moe.py: Qwen3's attention (per-head q/k RMSNorms) and, in place of the MLP,
// Qwen3MoeSparseMoeBlock: the router's softmax over num_experts, the top num_experts_per_tok
// divided by their sum when norm_topk_prob (else kept as they are), each chosen expert
// down(silu(gate x) · up x) weighted and added. Layers listed in mlp_only_layers, or off the
// decoder_sparse_step, keep a dense MLP: attnviz refuses those settings rather than misreading
// them.
#include <algorithm>

#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family qwen3_moe_record() {
  Family f{.title = "Qwen3-MoE", .layout = llama_layout("qwen3_moe", "qwen3_moe")};
  Layout& l = f.layout;
  // Qwen3MoeAttention's window rule changed between transformers versions (max_window_layers in
  // 4.51, every layer with a default of 4096 since): the released checkpoints never use one, and
  // use_sliding_window true is refused rather than read by either rule.
  l.refused_keys.push_back({"use_sliding_window", "a sliding window (Qwen3-MoE)"});
  replace_mlp_with_experts(l, "model.layers.{layer}.mlp.gate.weight",
                           "model.layers.{layer}.mlp.experts.{expert}.",
                           {"gate_proj", "up_proj", "down_proj"});
  roles::require(l.roles, {"decoder.self.q_norm.weight", "decoder.self.k_norm.weight"});
  l.experts = ExpertKeys{.count = {"num_experts"},
                         .top_k = {"num_experts_per_tok"},
                         .normalise = {"norm_topk_prob"},
                         .normalise_default = false,  // Qwen3MoeConfig's norm_topk_prob
                         .width = {"moe_intermediate_size"}};
  std::erase_if(l.refused_keys, [](const RefusedKey& r) { return r.key == "num_experts"; });
  l.refused_keys.push_back({"mlp_only_layers", "dense MLP layers among the sparse ones"});
  // 1 (every layer sparse) counts as unset; another step leaves dense layers between.
  l.refused_keys.push_back({"decoder_sparse_step", "dense MLP layers between the sparse ones"});
  // Qwen3MoeConfig's defaults beyond the shape.
  l.config_defaults = {{"rope_theta", 10000.0},
                       {"rms_norm_eps", 1e-6},
                       {"num_experts_per_tok", 8},
                       {"moe_intermediate_size", 768},
                       {"max_position_embeddings", 32768}};
  return f;
}

}  // namespace attnviz::detail
