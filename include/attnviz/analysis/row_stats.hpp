// Statistics of one softmax row over the keys the mask allows (entropy, saturation, Jacobian norm),
// and the streaming accumulators (mean / min / max, mean / variance, histogram) that pool them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "attnviz/analysis/row_kernel.hpp"

namespace attnviz {

// mean / min / max of a figure over rows (or heads); non-finite values are not counted.
struct Summary {
  int64_t count = 0;
  double sum = 0.0;
  double min = 0.0;
  double max = 0.0;

  void add(double x);
  void merge(const Summary& other);
  double mean() const;  // NaN when empty
};

// Mean and population variance by Welford's update, merged by Chan et al.'s pairwise formula
// (no catastrophic cancellation of Σx² − (Σx)²/n).
struct Moments {
  int64_t count = 0;
  double mean = 0.0;
  double m2 = 0.0;  // Σ (x − mean)²

  void add(double x);
  void merge(const Moments& other);
  double variance() const;  // m2 / count; NaN when empty
};

// Row max weights in k_histogram_bins equal bins over [0, 1] (1 falls in the last bin).
inline constexpr int k_histogram_bins = 20;
using Histogram = std::array<int64_t, k_histogram_bins>;
int histogram_bin(double max_weight);

// The figures of one row with at least one allowed key. NaN marks a figure the row does not have:
// entropy_normalized and top_gap need two allowed keys; previous needs key i − 1, diagonal key i.
struct RowFigures {
  int n_allowed = 0;
  double max_weight = 0.0;
  double entropy = 0.0;             // H = −Σ p log p (nats)
  double entropy_normalized = 0.0;  // H / log(n_allowed), in [0, 1]
  double effective_keys = 0.0;      // exp(H): 1 for one-hot, n for uniform
  double top_gap = 0.0;             // top-1 − top-2 of the logits that produced the row
  double jacobian_norm = 0.0;       // ‖diag(p) − p pᵀ‖_F
  double first_key = 0.0;           // weight on key 0 (attention sink)
  double previous = 0.0;            // weight on key i − 1
  double diagonal = 0.0;            // weight on key i
  bool saturated = false;           // n_allowed >= 2 and max_weight >= the saturation threshold
};

// probs and logits are one row over every key; allowed[j] != 0 where the mask lets query `query`
// see key j (at least one must be). Weights on masked keys are ignored here (the checks report
// them). Entries from n_keys on (when given) are outcomes of the softmax that are no key — a sink
// logit's — counted in the distribution (entropy, maximum, top gap) but never as key 0, i − 1 or i.
RowFigures row_figures(std::span<const float> probs, std::span<const double> logits,
                       std::span<const uint8_t> allowed, int query, double saturation,
                       int n_keys = -1);

// The weights of a row on key 0, key i − 1 and key i (0 where masked; NaN where the key does not
// exist), as row_figures sets first_key, previous and diagonal.
struct KeyWeights {
  double first_key = 0.0;
  double previous = 0.0;
  double diagonal = 0.0;
};

// row_figures from the row's sums (row_kernel.hpp) instead of its keys, equal up to rounding:
// of the model's softmax p, and of the counterfactual softmax(c · s) (c = 1 / (scale ·
// temperature), the top gap in its units).
RowFigures figures_of_probs(const RowSums& sums, const KeyWeights& keys, double saturation);
RowFigures figures_of_counterfactual(const RowSums& sums, double c, const KeyWeights& keys,
                                     double saturation);

// p = softmax(logits) over the allowed keys (max subtracted first), in double; masked keys get 0.
void masked_softmax(std::span<const double> logits, std::span<const uint8_t> allowed,
                    std::span<float> probs);

// ‖J‖_F for J = diag(p) − p pᵀ: ‖J‖_F² = Σ_i p_i²(1 − p_i)² + Σ_{i≠j} p_i² p_j²
//                                      = Σ p_i² − 2 Σ p_i³ + (Σ p_i²)².
double softmax_jacobian_norm(std::span<const float> probs, std::span<const uint8_t> allowed);

// Pooled row figures of one head (or of a layer, or of everything).
struct RowSummary {
  int64_t rows = 0;         // rows with at least one allowed key
  int64_t choice_rows = 0;  // rows with two or more: the only ones that can be saturated
  int64_t saturated_rows = 0;
  Summary max_weight, entropy, entropy_normalized, effective_keys, top_gap, jacobian_norm;
  Summary first_key, previous, diagonal;
  Histogram max_weight_histogram{};  // of rows with a choice (one-key rows are 1.0 by construction)

  void add(const RowFigures& row);
  void merge(const RowSummary& other);
  double saturated_share() const;  // saturated_rows / choice_rows; NaN when there are none
};

}  // namespace attnviz
