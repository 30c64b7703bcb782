// Multi-head attention (Vaswani et al. 2017, §3.2.2), one head at a time so only one map is live.
#include "attnviz/compute/multi_head.hpp"

#include <cmath>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/head_inputs.hpp"
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
  // q = x W_qᵀ + b_q, k = x W_kᵀ + b_k, v = x W_vᵀ + b_v, per head normalised / rotated when the model says
  const HeadInputs in = project_heads(x_q, x_kv, w, n_heads, site.qk);
  const int d_k = in.d_k;
  const int d_head_v = in.d_head_v;
  const float scale = site.scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  Matrix merged(in.q.rows(), n_heads * d_head_v);  // Concat(head_1, …, head_h): [n_q, n_heads · d_head_v]

  for (int h = 0; h < n_heads; ++h) {
    MapInfo info;
    info.id = site.id;
    info.id.head = h;
    info.n_heads = n_heads;
    info.n_query = static_cast<int>(in.q.rows());
    info.n_key = static_cast<int>(in.k.rows());
    info.d_head = d_k;
    info.scale = scale;
    info.q_var = component_variance(in.q_head(h));
    info.k_var = component_variance(in.k_head(h));
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
    scaled_dot_product_attention(merged.middleCols(h * d_head_v, d_head_v), in.q_head(h), in.k_head(h),
                                 in.v_head(h), *site.mask, scale, site.block_rows, emit);
    if (site.sink) site.sink->end_map(info);
  }
  return w.out ? linear(merged, *w.out) : merged;  // out = Concat(heads) W_Oᵀ + b_O
}

}  // namespace attnviz
