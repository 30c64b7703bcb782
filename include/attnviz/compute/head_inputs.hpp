// The per-head inputs of attention: q, k, v projected; q and k normalised (Qwen3's q/k norm per
// head, OLMo 2's over the projection) and rotated (RoPE); and which key/value head each query head
// reads (GQA / MQA).
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// What happens to every q and k head between the projection and the scores.
struct QueryKeyTransform {
  float norm_eps = 1e-6f;                // eps of the q/k RMSNorm, when the weights have q/k norms
  QkNorm norm_scope = QkNorm::per_head;  // what it normalises: each head, or the whole projection
  int rotary_dim = 0;           // leading dims of each head that rotate (0: no rotary positions)
  float rope_theta = 10000.0f;  // base of the rotary frequencies
  RopeScaling rope_scaling{};   // their stretching for long contexts (linear, llama3)
};

struct HeadInputs {
  Matrix q;  // [n_q, n_heads · d_k]
  Matrix k;  // [n_k, n_kv_heads · d_k]
  Matrix v;  // [n_k, n_kv_heads · d_head_v]
  int n_heads = 0, n_kv_heads = 0, d_k = 0, d_head_v = 0;

  // Query head h reads key/value head h / (n_heads / n_kv_heads), as HF's repeat_kv lays them out.
  int kv_head(int h) const { return h / (n_heads / n_kv_heads); }
  auto q_head(int h) const { return q.middleCols(h * d_k, d_k); }
  auto k_head(int h) const { return k.middleCols(kv_head(h) * d_k, d_k); }
  auto v_head(int h) const { return v.middleCols(kv_head(h) * d_head_v, d_head_v); }
};

// q = x_q W_qᵀ + b_q, k = x_kv W_kᵀ + b_k, v = x_kv W_vᵀ + b_v; then, in Qwen3's and OLMo 2's
// order, q_norm / k_norm (RMSNorm over each head's d_k, or over the whole projection) and per head
// rotary positions (token index 0 … n−1 for q and k alike).
// The head widths come from the shapes: d_k = q width / n_heads, n_kv_heads = k width / d_k.
HeadInputs project_heads(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                         int n_heads, const QueryKeyTransform& t);

}  // namespace attnviz
