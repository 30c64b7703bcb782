// Multi-head attention (Vaswani et al. 2017, §3.2.2), one head at a time so only one map is live.
#include "attnviz/compute/multi_head.hpp"

#include <cmath>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/linear.hpp"

namespace attnviz {

namespace {
// Population variance of every component of a head's q or k (what the seeds' sqrt(d_k) argument uses).
float component_variance(ConstMatrixRef m) {
  const double n = static_cast<double>(m.size());
  if (n == 0) return 0.0f;
  const double mean = m.cast<double>().sum() / n;
  return static_cast<float>((m.cast<double>().array() - mean).square().sum() / n);
}
}  // namespace

Matrix multi_head_attention(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                            int n_heads, const AttentionSite& site) {
  // q = x W_qᵀ + b_q, k = x W_kᵀ + b_k, v = x W_vᵀ + b_v
  const Matrix q = linear(x_q, w.q);    // [n_q, n_heads · d_k]
  const Matrix k = linear(x_kv, w.k);   // [n_k, n_heads · d_k]
  const Matrix v = linear(x_kv, w.v);   // [n_k, n_heads · d_head_v]
  const int d_k = static_cast<int>(q.cols()) / n_heads;
  const int d_head_v = static_cast<int>(v.cols()) / n_heads;
  const float scale = site.scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  Matrix merged(q.rows(), v.cols());  // Concat(head_1, …, head_h): [n_q, n_heads · d_head_v]

  for (int h = 0; h < n_heads; ++h) {
    MapInfo info;
    info.id = site.id;
    info.id.head = h;
    info.n_heads = n_heads;
    info.n_query = static_cast<int>(q.rows());
    info.n_key = static_cast<int>(k.rows());
    info.d_head = d_k;
    info.scale = scale;
    info.q_var = component_variance(q.middleCols(h * d_k, d_k));
    info.k_var = component_variance(k.middleCols(h * d_k, d_k));
    info.mask = site.mask;
    info.query_labels = site.query_labels;
    info.key_labels = site.key_labels;
    if (site.sink) site.sink->begin_map(info);
    BlockCallback emit;
    if (site.sink) {
      emit = [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p) {
        site.sink->on_block(AttentionBlock(info, r0, r1, s, p));
      };
    }
    scaled_dot_product_attention(merged.middleCols(h * d_head_v, d_head_v),
                                 q.middleCols(h * d_k, d_k), k.middleCols(h * d_k, d_k),
                                 v.middleCols(h * d_head_v, d_head_v), *site.mask, scale,
                                 site.block_rows, emit);
    if (site.sink) site.sink->end_map(info);
  }
  return w.out ? linear(merged, *w.out) : merged;  // out = Concat(heads) W_Oᵀ + b_O
}

}  // namespace attnviz
