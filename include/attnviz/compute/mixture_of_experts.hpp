// A mixture of experts in the FFN slot (Shazeer et al. 2017; Mixtral, Jiang et al. 2024): a router
// scores every expert per token, the top k experts run on it, and their outputs are summed with the
// router's weights:
//   p = softmax(x W_rᵀ + b_r) over the n experts,  E = the k largest p,
//   g_e = p_e / Σ_{e' ∈ E} p_e' (renormalised, Mixtral; Qwen3-MoE's norm_topk_prob) or p_e,
//   y = Σ_{e ∈ E} g_e · FFN_e(x).
#pragma once

#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// Each token's chosen experts and their weights g, [tokens, k] row-major, strongest first.
struct Routing {
  int top_k = 0;
  std::vector<int> experts;
  std::vector<float> weights;
};

// Routing of router logits [tokens, n]: softmax in double per token, the k largest (a tie goes to
// the lower expert index), renormalised over the k when `normalise`. A token with a NaN logit gets
// NaN weights (its output is NaN, which the NaN checks then report), not an arbitrary choice.
Routing route(ConstMatrixRef logits, int top_k, bool normalise);

// x [tokens, D] → [tokens, D]. Each expert's weights are bound (read from the file) only when a
// token is routed to it; its tokens run as one batch, and the outputs are added in expert order, as
// transformers' index_add_ loop over the experts does.
Matrix mixture_of_experts(ConstMatrixRef x, const ExpertWeights& w, const MixtureOfExperts& moe,
                          Activation activation, Routing* routing = nullptr);

}  // namespace attnviz
