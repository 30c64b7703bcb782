// Multi-head attention (Vaswani et al. 2017, §3.2.2), one head at a time so only one map is live.
#include "attnviz/compute/multi_head.hpp"

#include <cmath>
#include <limits>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/head_inputs.hpp"
#include "attnviz/compute/linear.hpp"

namespace attnviz {

Matrix multi_head_attention(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                            int n_heads, const AttentionSetup& setup, int layer) {
  // q = x W_qᵀ + b_q, k = x W_kᵀ + b_k, v = x W_vᵀ + b_v, per head normalised / rotated when the
  // model says
  const HeadInputs in = project_heads(x_q, x_kv, w, n_heads, setup.qk);
  const int d_k = in.d_k;
  const int d_head_v = in.d_head_v;
  const float scale = setup.scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  Matrix merged(in.q.rows(),
                n_heads * d_head_v);  // Concat(head_1, …, head_h): [n_q, n_heads · d_head_v]

  MapInfo info;
  info.id = HeadId{setup.stack, layer, setup.site, 0};
  info.n_heads = n_heads;
  info.n_query = static_cast<int>(in.q.rows());
  info.n_key = static_cast<int>(in.k.rows());
  info.d_head = d_k;
  info.scale = scale;
  info.softcap = setup.softcap;
  info.mask = setup.mask;
  info.relative_bias = setup.relative_bias;
  info.query_labels = setup.query_labels;
  info.key_labels = setup.key_labels;
  BlockCallback emit;
  if (setup.sink) {
    emit = [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p, const float* sink_probs) {
      setup.sink->on_block(AttentionBlock(info, r0, r1, s, p, sink_probs));
    };
  }
  for (int h = 0; h < n_heads; ++h) {
    info.id.head = h;
    info.id.kv_head = in.n_kv_heads < n_heads ? in.kv_head(h) : -1;  // GQA: the group it reads
    // A sink logit of −inf has weight 0 in every row: the head has no sink (its rows sum to 1).
    const bool sink =
        w.sink_logits.size() > 0 && w.sink_logits[h] != -std::numeric_limits<float>::infinity();
    info.sink_logit = sink ? std::optional<float>(w.sink_logits[h]) : std::nullopt;
    if (setup.sink) {
      setup.sink->begin_map(info);
      setup.sink->queries_and_keys(info, in.q_head(h), in.k_head(h));
      setup.sink->head_values(info, in.v_head(h));
    }
    const std::vector<float> bias =
        setup.relative_bias ? setup.relative_bias->by_offset(h, info.n_query, info.n_key)
                            : std::vector<float>{};
    scaled_dot_product_attention(merged.middleCols(h * d_head_v, d_head_v), in.q_head(h),
                                 in.k_head(h), in.v_head(h), *setup.mask, scale, setup.block_rows,
                                 emit, setup.softcap, info.sink_logit,
                                 bias.empty() ? nullptr : bias.data());
    if (setup.sink) {
      setup.sink->head_output(info, merged.middleCols(h * d_head_v, d_head_v));
      setup.sink->end_map(info);
    }
  }
  Matrix out = w.out ? linear(merged, *w.out) : merged;  // out = Concat(heads) W_Oᵀ + b_O
  if (setup.sink) setup.sink->attention_output(info, x_q, x_kv, merged, out);
  return out;
}

}  // namespace attnviz
