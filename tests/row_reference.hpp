// Row figures by their definitions in double, for tests: the Jacobian norm entry by entry and the
// softmax never rounded to float (the references the row kernel is held to).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "attnviz/analysis/row_stats.hpp"

namespace attnviz::test {

// ‖diag(q) − q qᵀ‖_F² = Σ_i q_i²(1 − q_i)² + Σ_i q_i² Σ_{j≠i} q_j², entry by entry. For a softmax
// known to sum to 1, 1 − q_i is taken as Σ_{j≠i} q_j: no cancellation near one-hot rows (unlike
// Σ q² − 2 Σ q³ + (Σ q²)²).
inline double explicit_jacobian(const std::vector<double>& q, bool sums_to_one) {
  double sq = 0.0;
  for (size_t i = 0; i < q.size(); ++i) {
    double others = 0.0, others_sq = 0.0;
    for (size_t j = 0; j < q.size(); ++j) {
      if (j == i) continue;
      others += q[j];
      others_sq += q[j] * q[j];
    }
    const double diagonal = q[i] * (sums_to_one ? others : 1.0 - q[i]);
    sq += diagonal * diagonal + q[i] * q[i] * others_sq;
  }
  return std::sqrt(sq);
}

// The figures of softmax(logits) over the allowed keys (at least two), all in double.
inline RowFigures double_softmax_figures(std::span<const double> logits,
                                         std::span<const uint8_t> allowed, int query,
                                         double saturation) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> live;
  for (size_t j = 0; j < logits.size(); ++j) {
    if (allowed[j]) live.push_back(logits[j]);
  }
  const double top = *std::max_element(live.begin(), live.end());
  double z = 0.0;
  for (double& l : live) z += l = std::exp(l - top);
  RowFigures r;
  r.n_allowed = static_cast<int>(live.size());
  for (double& q : live) {
    q /= z;
    r.max_weight = std::max(r.max_weight, q);
    if (q > 0) r.entropy -= q * std::log(q);
  }
  std::vector<double> sorted;
  for (size_t j = 0; j < logits.size(); ++j) {
    if (allowed[j]) sorted.push_back(logits[j]);
  }
  std::sort(sorted.rbegin(), sorted.rend());
  r.top_gap = sorted[0] - sorted[1];
  r.entropy_normalized = r.entropy / std::log(double(r.n_allowed));
  r.effective_keys = std::exp(r.entropy);
  r.jacobian_norm = explicit_jacobian(live, true);
  r.saturated = r.max_weight >= saturation;
  const auto n_key = static_cast<int>(logits.size());
  const auto weight = [&](int j) {
    return allowed[size_t(j)] ? std::exp(logits[size_t(j)] - top) / z : 0.0;
  };
  r.first_key = weight(0);
  r.previous = query >= 1 && query - 1 < n_key ? weight(query - 1) : nan;
  r.diagonal = query < n_key ? weight(query) : nan;
  return r;
}

}  // namespace attnviz::test
