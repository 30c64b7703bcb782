// Scaled dot-product attention (Vaswani et al. 2017, eq. 1) with a fused mask + softmax per row
// block.
#include "attnviz/compute/attention.hpp"

#include <cblas.h>  // OpenBLAS, the BLAS Eigen's products use (EIGEN_USE_BLAS)

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "attnviz/compute/block_team.hpp"
#include "attnviz/core/vector_math.hpp"

namespace attnviz {

namespace {
constexpr float k_neg_inf = -std::numeric_limits<float>::infinity();
}  // namespace

namespace {

// Softmax of one row whose columns [n_live, n_k) already hold -inf / 0: writes [0, n_live) only,
// so under a causal mask a block touches the keys it computed and no more.
// With a sink logit σ (gpt-oss), the softmax runs over the allowed keys and σ, whose weight goes
// to no key: p_j = exp(s_j − m) / (exp(σ − m) + Σ_l exp(s_l − m)), m = max(σ, max_j s_j); the
// sink's own weight is written to *sink_prob. The row then sums to 1 − *sink_prob.
void softmax_live_row(float* scores, float* probs, int n_k, int n_live, int query, const Mask& mask,
                      const float* sink_logit = nullptr, float* sink_prob = nullptr) {
  // p_j = exp(s_j − m) / Σ_l exp(s_l − m) over allowed keys, m = max_j s_j (so exp never overflows)
  const auto [lo, hi] = mask.key_range(query, n_k);  // hi <= n_live: the caller's promise
  std::fill(scores, scores + lo, k_neg_inf);         // masked_fill(mask == 0, -inf)
  std::fill(scores + hi, scores + n_live, k_neg_inf);
  std::fill(probs, probs + lo, 0.0f);
  std::fill(probs + hi, probs + n_live, 0.0f);
  if (mask.matrix) {  // a file mask may hide any key inside the range
    const uint8_t* keep = mask.matrix->row(query).data();
    for (int j = lo; j < hi; ++j) {
      if (keep[j] == 0) scores[j] = k_neg_inf;
    }
  }
  const auto n = static_cast<size_t>(hi - lo);
  const float key_max = max_of(scores + lo, n);  // NaN when a score is NaN
  if (key_max == k_neg_inf) {  // every key masked: a zero row, reported by the caller
    std::fill(probs + lo, probs + hi, 0.0f);
    if (sink_prob) *sink_prob = std::isnan(*sink_logit) ? *sink_logit : 1.0f;  // all on the sink
    return;
  }
  // max that keeps a NaN, of the keys' and the sink's
  const float row_max =
      sink_logit && !(*sink_logit <= key_max) && !std::isnan(key_max) ? *sink_logit : key_max;
  if (!std::isfinite(row_max)) {  // a NaN or +inf score: every allowed weight is NaN, as in PyTorch
    std::fill(probs + lo, probs + hi, std::numeric_limits<float>::quiet_NaN());
    if (sink_prob) *sink_prob = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  // Terms below ln(FLT_MIN) (masked keys, keys far below the max) are exactly 0, an absolute error
  // under 1.2e-38, as flush-to-zero. The sum is >= 1: the max element contributes exp(0).
  float sum = exp_shifted(scores + lo, probs + lo, n, row_max);
  const float sink_term = sink_logit ? std::exp(*sink_logit - row_max) : 0.0f;
  sum += sink_term;
  scale_in_place(probs + lo, n, 1.0f / sum);
  if (sink_prob) *sink_prob = sink_term / sum;
}

// One row block's scores and probabilities, kept per thread between calls so that long runs do not
// fault fresh pages in for every head and block; the buffers only grow. Tracks which trailing
// columns already hold -inf / 0, so a causal block writes only the keys it computed.
class BlockBuffers {
 public:
  struct Views {
    Eigen::Map<Matrix> scores, probs;
    float* sink;  // [rows]: the sink's weight per row (used only with a sink logit)
  };
  // [rows, n_k] views whose columns [n_live, n_k) hold -inf (scores) and 0 (probs); the caller
  // writes columns [0, n_live) only.
  Views take(int rows, int n_k, int n_live) {
    if (n_k != n_k_ || rows > rows_) {
      rows_ = std::max(rows, n_k == n_k_ ? rows_ : 0);
      n_k_ = n_k;
      const auto size = static_cast<size_t>(rows_) * static_cast<size_t>(n_k);
      if (scores_.size() < size) scores_.resize(size), probs_.resize(size);
      sink_.resize(static_cast<size_t>(rows_));
      clean_from_ = n_k;  // nothing known
    }
    Eigen::Map<Matrix> s(scores_.data(), rows_, n_k), p(probs_.data(), rows_, n_k);
    if (n_live < clean_from_) {
      s.middleCols(n_live, clean_from_ - n_live).setConstant(k_neg_inf);
      p.middleCols(n_live, clean_from_ - n_live).setZero();
    }
    clean_from_ = n_live;
    return {Eigen::Map<Matrix>(scores_.data(), rows, n_k),
            Eigen::Map<Matrix>(probs_.data(), rows, n_k), sink_.data()};
  }

 private:
  std::vector<float> scores_, probs_, sink_;
  int rows_ = 0, n_k_ = -1;
  int clean_from_ = 0;  // columns [clean_from_, n_k_) of rows [0, rows_) hold -inf / 0
};

// scores = scale · q kᵀ in one sgemm (alpha = scale, beta = 0): Eigen's product would clear the
// block first and scale it in a second pass, both on one core; the result is the same float.
void scaled_scores(MatrixRef scores, ConstMatrixRef q, ConstMatrixRef k, float scale) {
  const auto rows = static_cast<int>(q.rows()), n = static_cast<int>(k.rows()),
             d = static_cast<int>(q.cols());
  if (rows == 0 || n == 0) return;
  if (d == 0) {  // an empty dot product; BLAS refuses a leading dimension of 0
    scores.setZero();
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, n, d, scale, q.data(),
              static_cast<int>(q.outerStride()), k.data(), static_cast<int>(k.outerStride()), 0.0f,
              scores.data(), static_cast<int>(scores.outerStride()));
}

// The first row of each block, then n_q. Blocks are block_rows rows; under a causal mask a block
// costs in proportion to its last row, so the members, taking blocks in order, would end a head
// with one of them computing the largest block alone: the last 2 · block_rows rows are split into
// quarter blocks, which the members finish within a small block of each other.
std::vector<int> block_starts(int n_q, int block_rows, bool split_tail) {
  std::vector<int> starts;
  const int small = std::max(1, block_rows / 4);
  const int64_t tail = split_tail ? int64_t{n_q} - 2 * int64_t{block_rows}
                                  : n_q;  // --block-rows may be near INT_MAX
  for (int r = 0; r < n_q;) {
    starts.push_back(r);
    r = static_cast<int>(std::min<int64_t>(n_q, int64_t{r} + (r >= tail ? small : block_rows)));
  }
  starts.push_back(n_q);
  return starts;
}

}  // namespace

void masked_softmax_row(float* scores, float* probs, int n_k, int query, const Mask& mask) {
  softmax_live_row(scores, probs, n_k, n_k, query, mask);
}

void scaled_dot_product_attention(MatrixRef out, ConstMatrixRef q, ConstMatrixRef k,
                                  ConstMatrixRef v, const Mask& mask, float scale, int block_rows,
                                  const BlockCallback& on_block, float softcap,
                                  std::optional<float> sink_logit, const float* offset_bias) {
  const int n_q = static_cast<int>(q.rows());
  const int n_k = static_cast<int>(k.rows());
  block_rows = std::max(1, block_rows);
  const bool v_finite = v.allFinite();
  // Each member of the block team computes whole blocks into its own buffers (kept by the calling
  // thread between calls, so long runs do not fault fresh pages in for every head), then hands them
  // on in block order (one block per member is live).
  struct Computed {
    int r0 = 0, r1 = 0;
    std::optional<BlockBuffers::Views> views;
  };
  BlockTeam& team = BlockTeam::shared();
  thread_local std::vector<BlockBuffers> kept;
  if (kept.size() < static_cast<size_t>(team.size())) kept.resize(static_cast<size_t>(team.size()));
  // The caller's vector, named by a reference: inside the lambdas a thread_local name would mean
  // the running helper's own (empty) one.
  std::vector<BlockBuffers>& buffers = kept;
  std::vector<Computed> computed(static_cast<size_t>(team.size()));
  const std::vector<int> starts = block_starts(n_q, block_rows, mask.causal && team.size() > 1);
  const auto compute = [&](int block, int member) {
    const int r0 = starts[static_cast<size_t>(block)];
    const int r1 = starts[static_cast<size_t>(block) + 1];
    const int rows = r1 - r0;
    // Under a causal mask, keys j >= r1 are masked for every row of the block: skip them.
    const int n_live = mask.causal ? std::min(n_k, r1) : n_k;
    Computed& c = computed[static_cast<size_t>(member)];
    c.r0 = r0, c.r1 = r1;
    c.views.reset();  // an Eigen::Map assigned copies the cells: rebuilt instead
    c.views.emplace(buffers[static_cast<size_t>(member)].take(rows, n_k, n_live));
    auto& [s, p, sink] = *c.views;
    auto s_live = s.leftCols(n_live);
    scaled_scores(s_live, q.middleRows(r0, rows), k.topRows(n_live), scale);
    if (offset_bias) {  // row i's offsets j − i start at −i: index n_q − 1 − i
      for (int i = 0; i < rows; ++i) {
        s_live.row(i) += Eigen::Map<const RowVector>(offset_bias + (n_q - 1 - (r0 + i)), n_live);
      }
    }
    if (softcap > 0) s_live = ((s_live.array() / softcap).tanh() * softcap).matrix();
    for (int i = 0; i < rows; ++i) {
      softmax_live_row(s.row(i).data(), p.row(i).data(), n_k, n_live, r0 + i, mask,
                       sink_logit ? &*sink_logit : nullptr, sink_logit ? sink + i : nullptr);
    }
    // out = probs v. The skipped keys have weight 0, exact unless v holds NaN/inf: 0·NaN is NaN
    // in the full product PyTorch computes (masked_fill + softmax + matmul), so then every key is
    // multiplied, and the result does not depend on --block-rows.
    const int n_pv = v_finite ? n_live : n_k;
    out.middleRows(r0, rows).noalias() = p.leftCols(n_pv) * v.topRows(n_pv);
  };
  const auto emit = [&](int /*block*/, int member) {
    const Computed& c = computed[static_cast<size_t>(member)];
    if (on_block)
      on_block(c.r0, c.r1, c.views->scores, c.views->probs, sink_logit ? c.views->sink : nullptr);
  };
  team.run(static_cast<int>(starts.size()) - 1, compute, emit);
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
