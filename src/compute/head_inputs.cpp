// Projection into heads, with the steps some families add before the scores.
#include "attnviz/compute/head_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/compute/linear.hpp"
#include "attnviz/compute/rms_norm.hpp"
#include "attnviz/compute/rotary.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

// RMSNorm of every d-wide head of x with the one gain all heads share (Qwen3RMSNorm(head_dim)), or
// of each whole row of x with a gain per column (OLMo 2's q_norm over n_heads · head_dim).
void normalize(Matrix& x, int d, const RowVector& gain, float eps, QkNorm scope) {
  if (gain.size() == 0) return;
  const LayerNormWeights w{gain, {}};
  const Eigen::Index width = scope == QkNorm::whole ? x.cols() : d;
  if (gain.size() != width) {
    throw Error(fmt::format("q/k norm: a gain of {} for {} columns normalised {}", gain.size(),
                            width, scope == QkNorm::whole ? "whole" : "per head"));
  }
  for (Eigen::Index c = 0; c < x.cols(); c += width)
    x.middleCols(c, width) = rms_norm(x.middleCols(c, width), w, eps);
}

void rotate_heads(Matrix& x, int d, const RotaryTable& table) {
  for (Eigen::Index c = 0; c < x.cols(); c += d) apply_rotary(x.middleCols(c, d), table);
}

}  // namespace

HeadInputs project_heads(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                         int n_heads, const QueryKeyTransform& t) {
  HeadInputs in{linear(x_q, w.q), linear(x_kv, w.k), linear(x_kv, w.v), n_heads, 0, 0, 0};
  in.d_k = static_cast<int>(in.q.cols()) / n_heads;
  in.n_kv_heads = in.d_k > 0 ? static_cast<int>(in.k.cols()) / in.d_k : 0;
  if (in.n_kv_heads < 1 || in.k.cols() != in.n_kv_heads * in.d_k || n_heads % in.n_kv_heads != 0 ||
      in.v.cols() % in.n_kv_heads != 0) {
    throw Error(fmt::format("attention: {} heads cannot read q [{}], k [{}], v [{}] columns",
                            n_heads, in.q.cols(), in.k.cols(), in.v.cols()));
  }
  in.d_head_v = static_cast<int>(in.v.cols()) / in.n_kv_heads;
  normalize(in.q, in.d_k, w.q_norm, t.norm_eps, t.norm_scope);
  normalize(in.k, in.d_k, w.k_norm, t.norm_eps, t.norm_scope);
  if (t.rotary_dim > 0) {
    const RotaryTable table = rotary_table(static_cast<int>(std::max(in.q.rows(), in.k.rows())),
                                           t.rotary_dim, t.rope_theta, t.rope_scaling);
    rotate_heads(in.q, in.d_k, table);
    rotate_heads(in.k, in.d_k, table);
  }
  return in;
}

}  // namespace attnviz
