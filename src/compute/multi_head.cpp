// Multi-head attention (Vaswani et al. 2017, §3.2.2), one head at a time so only one map is live.
#include "attnviz/compute/multi_head.hpp"

#include <cmath>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/linear.hpp"

namespace attnviz {

Matrix multi_head_attention(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                            int n_heads, const AttentionSetup& setup, int layer) {
  // q = x W_qᵀ + b_q, k = x W_kᵀ + b_k, v = x W_vᵀ + b_v
  const Matrix q = linear(x_q, w.q);    // [n_q, n_heads · d_k]
  const Matrix k = linear(x_kv, w.k);   // [n_k, n_heads · d_k]
  const Matrix v = linear(x_kv, w.v);   // [n_k, n_heads · d_head_v]
  const int d_k = static_cast<int>(q.cols()) / n_heads;
  const int d_head_v = static_cast<int>(v.cols()) / n_heads;
  const float scale = setup.scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  Matrix merged(q.rows(), v.cols());  // Concat(head_1, …, head_h): [n_q, n_heads · d_head_v]

  MapInfo info;
  info.id = HeadId{setup.stack, layer, setup.site, 0};
  info.n_heads = n_heads;
  info.n_query = static_cast<int>(q.rows());
  info.n_key = static_cast<int>(k.rows());
  info.d_head = d_k;
  info.scale = scale;
  info.mask = setup.mask;
  info.query_labels = setup.query_labels;
  info.key_labels = setup.key_labels;
  BlockCallback emit;
  if (setup.sink) {
    emit = [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p) {
      setup.sink->on_block(AttentionBlock(info, r0, r1, s, p));
    };
  }
  for (int h = 0; h < n_heads; ++h) {
    info.id.head = h;
    const auto q_h = q.middleCols(h * d_k, d_k), k_h = k.middleCols(h * d_k, d_k);
    if (setup.sink) {
      setup.sink->begin_map(info);
      setup.sink->queries_and_keys(info, q_h, k_h);
    }
    scaled_dot_product_attention(merged.middleCols(h * d_head_v, d_head_v), q_h, k_h,
                                 v.middleCols(h * d_head_v, d_head_v), *setup.mask, scale,
                                 setup.block_rows, emit);
    if (setup.sink) setup.sink->end_map(info);
  }
  return w.out ? linear(merged, *w.out) : merged;  // out = Concat(heads) W_Oᵀ + b_O
}

}  // namespace attnviz
