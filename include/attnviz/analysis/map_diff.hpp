// Two runs' attention maps compared head by head: the largest and mean absolute difference, the
// Jensen–Shannon divergence of each query row, and the change of row entropy.
#pragma once

#include <cstdint>

namespace attnviz {

struct HeadDiff {
  double max_abs = 0.0;    // max over cells of |b − a|
  double mean_abs = 0.0;   // mean over cells of |b − a|
  double jsd = 0.0;        // mean over compared rows of JSD(a_i, b_i), base 2: in [0, 1]
  double entropy_a = 0.0;  // mean over compared rows of H(a_i) = −Σ p ln p (nats)
  double entropy_b = 0.0;
  int64_t rows_compared = 0;  // rows where both a and b have weight
  int64_t rows_one_sided =
      0;  // rows with weight in one map only (a mask that differs): not in jsd / entropy
};

// a, b: [n_query, n_key] row-major weights of one head (masked cells 0, rows summing to 1 or 0).
// A NaN anywhere makes every figure NaN.
HeadDiff diff_head(const float* a, const float* b, int64_t n_query, int64_t n_key);

}  // namespace attnviz
