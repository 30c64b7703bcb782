// Next-token predictions, streamed: each block of the vocabulary is converted once and multiplied
// with blocks of positions; per position an online softmax (running max and sum, rescaled when the
// max grows) and a running top K.
#include "attnviz/compute/logits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz {

const TokenTable* unembedding(const Model& model) {
  const EmbeddingWeights& e = model.weights.embed;
  if (e.unembed) return &*e.unembed;
  if (model.config.tied_embeddings && e.token) return &*e.token;
  return nullptr;
}

namespace {

// Positions multiplied with one vocabulary block at a time: 512 × 4096 logits = 8 MB.
constexpr Eigen::Index k_position_rows = 512;

// One position's softmax and top K so far.
struct RunningRow {
  float max = -std::numeric_limits<float>::infinity();
  double sum = 0;               // Σ exp(logit − max) over the logits seen so far
  std::vector<Prediction> top;  // at most K, best first
};

bool ranks_before(const Prediction& a, const Prediction& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

// logits of tokens [id0, id0 + n): softmax(x)_i = exp(x_i − m) / Σ_j exp(x_j − m) for any m, so the
// sum so far is rescaled by exp(old max − new max) when a block raises the max.
void add_block(RunningRow& r, const Eigen::Ref<const RowVector>& logits, int64_t id0, size_t k) {
  const float block_max = logits.maxCoeff();
  if (block_max > r.max) {
    r.sum *= std::exp(static_cast<double>(r.max) - block_max);
    r.max = block_max;
  }
  r.sum += static_cast<double>((logits.array() - r.max).exp().sum());
  for (Eigen::Index i = 0; i < logits.size(); ++i) {
    const Prediction p{id0 + i, logits[i], 0.0f};
    if (r.top.size() == k && !ranks_before(p, r.top.back())) continue;
    r.top.insert(std::upper_bound(r.top.begin(), r.top.end(), p, ranks_before), p);
    if (r.top.size() > k) r.top.pop_back();
  }
}

}  // namespace

std::vector<std::vector<Prediction>> top_predictions(const TokenTable& unembed,
                                                     const Matrix& hidden, int k, float cap,
                                                     const RowVector& bias) {
  const auto keep = static_cast<size_t>(std::clamp<int64_t>(k, 0, unembed.rows()));
  std::vector<RunningRow> rows(static_cast<size_t>(hidden.rows()));
  for (Eigen::Index v0 = 0; v0 < unembed.rows(); v0 += TokenTable::k_block_rows) {
    const Matrix w = unembed.block(v0, std::min(TokenTable::k_block_rows, unembed.rows() - v0));
    for (Eigen::Index p0 = 0; p0 < hidden.rows(); p0 += k_position_rows) {
      const Eigen::Index n = std::min(k_position_rows, hidden.rows() - p0);
      Matrix logits = hidden.middleRows(p0, n) * w.transpose();  // logits = hidden · W_unembedᵀ
      if (bias.size() > 0) logits.rowwise() += bias.segment(v0, w.rows());  // + b (Marian)
      if (cap > 0) logits = cap * (logits.array() / cap).tanh();            // Gemma 2's soft-cap
      for (Eigen::Index i = 0; i < n; ++i)
        add_block(rows[static_cast<size_t>(p0 + i)], logits.row(i), v0, keep);
    }
  }
  std::vector<std::vector<Prediction>> out;
  out.reserve(rows.size());
  for (RunningRow& r : rows) {
    for (Prediction& p : r.top)
      p.probability = static_cast<float>(std::exp(double(p.logit) - r.max) / r.sum);
    out.push_back(std::move(r.top));
  }
  return out;
}

std::vector<std::vector<Prediction>> model_predictions(const Model& model, const Matrix& hidden,
                                                       int k) {
  const Config& c = model.config;
  const Matrix scaled =
      c.unembed_input_scale != 1.0f ? Matrix(hidden * c.unembed_input_scale) : hidden;
  return top_predictions(*unembedding(model), scaled, k, c.final_logit_softcap,
                         model.weights.embed.unembed_bias);
}

}  // namespace attnviz
