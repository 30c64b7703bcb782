// The sums one attention row's figures are made of, for the model's softmax and the unscaled
// counterfactual at once: a float kernel (Highway, the CPU's widest SIMD chosen at run time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnviz {

// Over the n allowed keys of one row: p the model's weights, s its scaled scores, and the
// counterfactual e_j = exp(d_j), d_j = c·(s_j − top1) (softmax(c·s) = e / Z, Z = Σ e, no second
// softmax stored). "Rest" sums leave out the keys at the maximum (of p, or of s for e), so the
// Jacobian norm near a one-hot row is a sum of non-negative terms instead of 1 − 2 + 1.
// Entropy: p is the softmax of s, p_j = p_top · exp(s_j − top1), so −Σ p log p = −log(p_top) · Σ p
// − Σ p (s − top1), one log per row. It differs from −Σ p log p of the stored floats by
// Σ p_j δ_j, δ_j the model's own rounding of log p_j (a few float ulp, ≤ 2e-7); with H ≥
// (1 − p_top) ln 2 (every other weight ≤ 1/2) that is ≤ 3e-7 of H, below what stats prints.
struct RowSums {
  bool finite = true;  // false: a p or s is NaN or ±inf (or Σ p, Σ s overflow); then only
                       // max_weight, top1, top2, p_sum and score_sum are set
  int64_t n = 0;
  // the model's softmax p
  float max_weight = 0.0f;  // max p (−inf when n = 0)
  int64_t n_at_max = 0;     // keys with p == max p
  double p_sum = 0.0;       // Σ p
  float p_top = 0.0f;       // p at the top score
  double p_gap = 0.0;       // Σ p (s − top1) (≤ 0): the entropy without a log per key, below
  double rest_p2 = 0.0, rest_p3 = 0.0;  // Σ p², Σ p³ over keys with p < max p
  // the scores s
  float top1 = 0.0f, top2 = 0.0f;  // largest and second largest s (−inf when n < 2)
  double score_sum = 0.0;          // Σ s
  double score_m2 = 0.0;           // Σ (s − mean)²
  // the counterfactual e (keys with s == top1 have d = 0, e = 1 exactly)
  int64_t n_at_top = 0;                 // keys with s == top1
  double rest_e = 0.0;                  // Σ e over keys with s < top1 (Z = n_at_top + rest_e)
  double e_d = 0.0;                     // Σ e·d (≤ 0)
  double rest_e2 = 0.0, rest_e3 = 0.0;  // Σ e², Σ e³ over keys with s < top1
};

// The sums of one row; c > 0 and finite (1 / (scale · temperature)). probs and scores hold n
// floats each. e below FLT_MIN counts 0 (the compute's softmax does the same): Z moves by <
// n·1.2e-38.
RowSums row_sums(const float* probs, const float* scores, std::size_t n, float c);

}  // namespace attnviz
