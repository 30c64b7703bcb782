// Scaled dot-product attention, streamed in row blocks: out = softmax(mask(scale · q kᵀ)) v.
// Dimensions: n_q query rows, n_k keys, d_k per-head query/key width, d_v per-head value width.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"

namespace attnviz {

// Called once per row block with rows [r0, r1) of the scores and the probabilities, [r1 - r0, n_k],
// and, under a sink logit, the sink's weight in each row ([r1 - r0]; else null).
using BlockCallback = std::function<void(int r0, int r1, ConstMatrixRef scores,
                                         ConstMatrixRef probs, const float* sink_probs)>;

// Softmax over one row of scores in place, over the keys the mask allows; other cells become 0.
// Subtracts the row max first (exp never overflows). A row with no allowed key becomes a zero row
// (as torch.nn.functional.scaled_dot_product_attention does since 2024), never NaN or uniform.
// Masked cells of `scores` are set to -inf, as masked_fill does.
void masked_softmax_row(float* scores, float* probs, int n_k, int query, const Mask& mask);

// out [n_q, d_v] = softmax(mask(scale · q kᵀ)) v for q [n_q, d_k], k [n_k, d_k], v [n_k, d_v].
// Rows are processed block_rows at a time, so memory stays O(block_rows · n_k); under a causal
// mask the keys after a block's last row are never computed (half the work of a full map).
// With softcap > 0 the scores are soft-capped first, softcap · tanh(scores / softcap) (Gemma 2's
// attn_logit_softcapping): the scores handed to on_block are those the softmax reads.
// With a sink logit σ (gpt-oss's learned per-head "sinks"; Xiao et al. 2023's attention sink made a
// parameter), σ joins each row's softmax as one more logit whose weight goes to no key and so adds
// nothing to out: the keys' weights sum to 1 − p_sink, as transformers' eager_attention_forward
// for gpt-oss computes (softmax over [scores, σ], the last column dropped).
// With offset_bias (T5's relative position bias), score (i, j) gains offset_bias[j − i + n_q − 1]
// after the scale and before the soft-cap and the mask: n_q + n_k − 1 values, one per offset.
void scaled_dot_product_attention(MatrixRef out, ConstMatrixRef q, ConstMatrixRef k,
                                  ConstMatrixRef v, const Mask& mask, float scale, int block_rows,
                                  const BlockCallback& on_block, float softcap = 0.0f,
                                  std::optional<float> sink_logit = std::nullopt,
                                  const float* offset_bias = nullptr);

// Query rows whose every key is masked (they come out as zero rows).
std::vector<int> fully_masked_rows(const Mask& mask, int n_q, int n_k);

}  // namespace attnviz
