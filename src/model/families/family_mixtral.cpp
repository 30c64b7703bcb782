// Mixtral (MixtralForCausalLM; Jiang et al. 2024), from transformers' modeling_mixtral.py:
// Mistral's attention, and in place of the MLP a sparse mixture of experts (MixtralSparseMoeBlock):
// the router's softmax over num_local_experts, the top num_experts_per_tok renormalised to sum 1,
// each chosen expert w2(silu(w1 x) · w3 x) weighted and added. Only the experts a token chooses
// run.
#include <algorithm>

#include "family_records.hpp"

namespace attnviz::detail {

Family mixtral_record() {
  Family f{.title = "Mixtral", .layout = llama_layout("mixtral", "mixtral")};
  Layout& l = f.layout;
  // MixtralConfig's sliding_window (None in the released configs: no window).
  l.sliding = SlidingLayers::all;
  replace_mlp_with_experts(l, "model.layers.{layer}.block_sparse_moe.gate.weight",
                           "model.layers.{layer}.block_sparse_moe.experts.{expert}.",
                           {"w1", "w3", "w2"});
  l.experts = ExpertKeys{.count = {"num_local_experts"},
                         .top_k = {"num_experts_per_tok"},
                         .normalise = {},
                         .normalise_default = true};
  // It reads num_local_experts, which the dense families refuse.
  std::erase_if(l.refused_keys, [](const RefusedKey& r) { return r.key == "num_local_experts"; });
  // MixtralConfig's defaults beyond the shape; router_jitter_noise and the auxiliary loss only
  // train.
  l.config_defaults = {{"rope_theta", 1000000.0},
                       {"rms_norm_eps", 1e-5},
                       {"num_experts_per_tok", 2},
                       {"max_position_embeddings", 131072}};
  l.layer_norm_eps = 1e-5f;
  return f;
}

}  // namespace attnviz::detail
