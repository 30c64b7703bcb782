// Scaled dot-product attention (Vaswani et al. 2017, eq. 1) with a fused mask + softmax per row block.
#include "attnviz/compute/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz {

namespace {
constexpr float k_neg_inf = -std::numeric_limits<float>::infinity();
constexpr float k_exp_underflow = -87.336544750553f;  // ln(FLT_MIN): exp below it is subnormal
}  // namespace

namespace {

// Keys [lo, hi) that causal, padding and window masks leave to query i: always one contiguous range.
std::pair<int, int> allowed_range(const Mask& mask, int i, int n_k) {
  // 64-bit: i + window overflows int for --window 2147483647; the results lie in [0, n_k].
  int64_t lo = 0, hi = int64_t{n_k} - mask.n_pad_keys;
  if (mask.causal) hi = std::min<int64_t>(hi, int64_t{i} + 1);
  if (mask.window > 0) {
    lo = std::max<int64_t>(lo, int64_t{i} - mask.window + 1);
    hi = std::min<int64_t>(hi, int64_t{i} + mask.window);
  }
  return {static_cast<int>(lo), static_cast<int>(std::max(lo, hi))};
}

}  // namespace

void masked_softmax_row(float* scores, float* probs, int n_k, int query, const Mask& mask) {
  // p_j = exp(s_j − m) / Σ_l exp(s_l − m) over allowed keys, m = max_j s_j (so exp never overflows)
  const auto [lo, hi] = allowed_range(mask, query, n_k);
  Eigen::Map<Eigen::ArrayXf> s(scores, n_k), p(probs, n_k);
  s.head(lo).setConstant(k_neg_inf);  // masked_fill(mask == 0, -inf)
  s.tail(n_k - hi).setConstant(k_neg_inf);
  if (mask.matrix) {  // a file mask may hide any key inside the range
    for (int j = lo; j < hi; ++j) {
      if ((*mask.matrix)(query, j) == 0) s[j] = k_neg_inf;
    }
  }
  const float row_max = hi > lo ? s.segment(lo, hi - lo).maxCoeff() : k_neg_inf;
  p.setZero();
  if (row_max == k_neg_inf) return;  // every key masked: a zero row, reported by the caller
  // Eigen vectorises exp over the range, but its exp clamps the argument near −88.4 and returns
  // ~2.9e-39 for anything below, −inf included (without -march=native). Below ln(FLT_MIN) the true
  // value is subnormal or 0, so those terms are set to exactly 0 (an absolute error under 1.2e-38,
  // as flush-to-zero): masked keys, and keys whose score is far below the row's max, get 0.
  const auto x = s.segment(lo, hi - lo) - row_max;
  auto live = p.segment(lo, hi - lo);
  live = (x < k_exp_underflow).select(0.0f, x.exp());
  live *= 1.0f / live.sum();  // the sum is >= 1: the max element contributes exp(0)
}

void scaled_dot_product_attention(MatrixRef out, ConstMatrixRef q, ConstMatrixRef k,
                                  ConstMatrixRef v, const Mask& mask, float scale, int block_rows,
                                  const BlockCallback& on_block, float softcap) {
  const int n_q = static_cast<int>(q.rows());
  const int n_k = static_cast<int>(k.rows());
  block_rows = std::max(1, block_rows);
  const bool v_finite = v.allFinite();
  Matrix scores(std::min(block_rows, n_q), n_k);
  Matrix probs(scores.rows(), n_k);
  for (int r0 = 0; r0 < n_q; r0 += block_rows) {
    const int r1 = std::min(n_q, r0 + block_rows);
    const int rows = r1 - r0;
    // Under a causal mask, keys j >= r1 are masked for every row of the block: skip them.
    const int n_live = mask.causal ? std::min(n_k, r1) : n_k;
    auto s = scores.topRows(rows);
    auto p = probs.topRows(rows);
    // scores = q kᵀ / sqrt(d_k)
    s.leftCols(n_live).noalias() = q.middleRows(r0, rows) * k.topRows(n_live).transpose();
    s.leftCols(n_live) *= scale;
    if (softcap > 0) s.leftCols(n_live) = ((s.leftCols(n_live).array() / softcap).tanh() * softcap).matrix();
    s.rightCols(n_k - n_live).setConstant(k_neg_inf);
    for (int i = 0; i < rows; ++i) {
      masked_softmax_row(s.row(i).data(), p.row(i).data(), n_k, r0 + i, mask);
    }
    // out = probs v. The skipped keys have weight 0, exact unless v holds NaN/inf: 0·NaN is NaN
    // in the full product PyTorch computes (masked_fill + softmax + matmul), so then every key is
    // multiplied, and the result does not depend on --block-rows.
    const int n_pv = v_finite ? n_live : n_k;
    out.middleRows(r0, rows).noalias() = p.leftCols(n_pv) * v.topRows(n_pv);
    if (on_block) on_block(r0, r1, s, p);
  }
}

std::vector<int> fully_masked_rows(const Mask& mask, int n_q, int n_k) {
  std::vector<int> rows;
  for (int i = 0; i < n_q; ++i) {
    bool any = false;
    for (int j = 0; j < n_k && !any; ++j) any = mask.allowed(i, j, n_k);
    if (!any) rows.push_back(i);
  }
  return rows;
}

}  // namespace attnviz
