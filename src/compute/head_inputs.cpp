// Projection into heads, with the per-head steps some families add before the scores.
#include "attnviz/compute/head_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/compute/linear.hpp"
#include "attnviz/compute/rms_norm.hpp"
#include "attnviz/compute/rotary.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

// RMSNorm of every d-wide head of x with the one gain all heads share (Qwen3RMSNorm(head_dim)).
void normalize_heads(Matrix& x, int d, const RowVector& gain, float eps) {
  if (gain.size() == 0) return;
  const LayerNormWeights w{gain, {}};
  for (Eigen::Index c = 0; c < x.cols(); c += d)
    x.middleCols(c, d) = rms_norm(x.middleCols(c, d), w, eps);
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
  normalize_heads(in.q, in.d_k, w.q_norm, t.norm_eps);
  normalize_heads(in.k, in.d_k, w.k_norm, t.norm_eps);
  if (t.rotary_dim > 0) {
    const RotaryTable table = rotary_table(static_cast<int>(std::max(in.q.rows(), in.k.rows())),
                                           t.rotary_dim, t.rope_theta, t.rope_scaling);
    rotate_heads(in.q, in.d_k, table);
    rotate_heads(in.k, in.d_k, table);
  }
  return in;
}

}  // namespace attnviz
