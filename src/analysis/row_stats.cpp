// Per-row softmax statistics (entropy, saturation, Jacobian norm) and the accumulators that pool
// them.
#include "attnviz/analysis/row_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz {

namespace {
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_neg_inf = -std::numeric_limits<double>::infinity();

// What every row's figures derive the same way from entropy, max weight and n_allowed.
void finish_figures(RowFigures& r, double saturation) {
  r.entropy = std::max(0.0, r.entropy);  // −0 and rounding below 0 for one-hot rows
  r.entropy_normalized = r.n_allowed >= 2 ? r.entropy / std::log(double(r.n_allowed)) : k_nan;
  r.effective_keys = std::exp(r.entropy);
  // A row with one allowed key (row 0 of a causal map) is one-hot by construction: its weight 1.0
  // is no evidence of a sharp softmax, so only rows that had a choice can be saturated.
  r.saturated = r.n_allowed >= 2 && r.max_weight >= saturation;
}

void set_key_weights(RowFigures& r, const KeyWeights& keys) {
  r.first_key = keys.first_key;
  r.previous = keys.previous;
  r.diagonal = keys.diagonal;
}

// ‖J‖_F² = S2 − 2 S3 + S2² (softmax_jacobian_norm) with S_k = a^k + R_k, a the weight of one key at
// the max and R_k the rest: a²(1 − a)² + (R2 − 2 R3) + 2 a² R2 + R2². Every term is ≥ 0 (a rest key
// weighs ≤ 1/2), so a near one-hot row keeps its digits where 1 − 2 + 1 would cancel them.
double jacobian_from_rest(double a, double one_minus_a, double r2, double r3) {
  const double j2 =
      a * a * one_minus_a * one_minus_a + (r2 - 2.0 * r3) + 2.0 * a * a * r2 + r2 * r2;
  return std::sqrt(std::max(0.0, j2));
}
}  // namespace

void Summary::add(double x) {
  if (!std::isfinite(x)) return;
  min = count == 0 ? x : std::min(min, x);
  max = count == 0 ? x : std::max(max, x);
  sum += x;
  ++count;
}

void Summary::merge(const Summary& other) {
  if (other.count == 0) return;
  min = count == 0 ? other.min : std::min(min, other.min);
  max = count == 0 ? other.max : std::max(max, other.max);
  sum += other.sum;
  count += other.count;
}

double Summary::mean() const {
  return count == 0 ? k_nan : sum / static_cast<double>(count);
}

void Moments::add(double x) {
  if (!std::isfinite(x)) return;
  ++count;  // Welford: mean_n = mean_{n-1} + (x − mean_{n-1}) / n; m2 += (x − mean_{n-1})(x −
            // mean_n)
  const double delta = x - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (x - mean);
}

void Moments::merge(const Moments& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  // Chan, Golub, LeVeque (1979): m2 = m2_a + m2_b + δ² n_a n_b / n
  const double n_a = static_cast<double>(count), n_b = static_cast<double>(other.count);
  const double n = n_a + n_b;
  const double delta = other.mean - mean;
  mean += delta * n_b / n;
  m2 += other.m2 + delta * delta * n_a * n_b / n;
  count += other.count;
}

double Moments::variance() const {
  return count == 0 ? k_nan : m2 / static_cast<double>(count);
}

int histogram_bin(double max_weight) {
  const int bin = static_cast<int>(std::floor(max_weight * k_histogram_bins));
  return std::clamp(bin, 0, k_histogram_bins - 1);
}

void masked_softmax(std::span<const double> logits, std::span<const uint8_t> allowed,
                    std::span<float> probs) {
  // p_j = exp(s_j − m) / Σ_l exp(s_l − m), m = max over allowed keys (exp never overflows)
  double row_max = k_neg_inf;
  for (size_t j = 0; j < logits.size(); ++j) {
    if (allowed[j]) row_max = std::max(row_max, logits[j]);
  }
  double sum = 0.0;
  for (size_t j = 0; j < logits.size(); ++j) {
    const double e = allowed[j] && row_max != k_neg_inf ? std::exp(logits[j] - row_max) : 0.0;
    probs[j] = static_cast<float>(e);
    sum += e;
  }
  const double inv_sum = sum > 0.0 ? 1.0 / sum : 0.0;  // sum >= 1 unless every key is masked
  for (float& p : probs) p = static_cast<float>(p * inv_sum);
}

double softmax_jacobian_norm(std::span<const float> probs, std::span<const uint8_t> allowed) {
  // ‖diag(p) − p pᵀ‖_F² = Σ p_i² − 2 Σ p_i³ + (Σ p_i²)²
  double s2 = 0.0, s3 = 0.0;
  for (size_t j = 0; j < probs.size(); ++j) {
    if (!allowed[j]) continue;
    const double p = probs[j];
    s2 += p * p;
    s3 += p * p * p;
  }
  return std::sqrt(
      std::max(0.0, s2 - 2.0 * s3 + s2 * s2));  // rounding can dip below 0 near one-hot
}

RowFigures row_figures(std::span<const float> probs, std::span<const double> logits,
                       std::span<const uint8_t> allowed, int query, double saturation, int n_keys) {
  RowFigures r;
  double top1 = k_neg_inf, top2 = k_neg_inf;
  for (size_t j = 0; j < probs.size(); ++j) {
    if (!allowed[j]) continue;
    ++r.n_allowed;
    const double p = probs[j];
    r.max_weight = std::max(r.max_weight, p);
    if (p > 0.0) r.entropy -= p * std::log(p);  // H = −Σ p log p, with 0 log 0 = 0
    const double s = logits[j];
    if (s > top1) {
      top2 = top1;
      top1 = s;
    } else if (s > top2) {
      top2 = s;
    }
  }
  const auto n_key = n_keys >= 0 ? n_keys : static_cast<int>(probs.size());
  const auto weight = [&](int j) { return allowed[j] ? static_cast<double>(probs[j]) : 0.0; };
  r.top_gap = r.n_allowed >= 2 ? top1 - top2 : k_nan;
  r.jacobian_norm = softmax_jacobian_norm(probs, allowed);
  r.first_key = n_key > 0 ? weight(0) : 0.0;
  r.previous = query >= 1 && query - 1 < n_key ? weight(query - 1) : k_nan;
  r.diagonal = query < n_key ? weight(query) : k_nan;
  finish_figures(r, saturation);
  return r;
}

RowFigures figures_of_probs(const RowSums& sums, const KeyWeights& keys, double saturation) {
  RowFigures r;
  r.n_allowed = static_cast<int>(sums.n);
  r.max_weight = sums.max_weight;
  r.entropy = -std::log(double(sums.p_top)) * sums.p_sum - sums.p_gap;  // row_kernel.hpp
  r.top_gap = sums.n >= 2 ? double(sums.top1) - double(sums.top2) : k_nan;
  // The keys tied at the max but the one left out go back into the rest sums.
  const double a = sums.max_weight,
               ties = static_cast<double>(std::max<int64_t>(sums.n_at_max - 1, 0));
  r.jacobian_norm =
      jacobian_from_rest(a, 1.0 - a, sums.rest_p2 + ties * a * a, sums.rest_p3 + ties * a * a * a);
  set_key_weights(r, keys);
  finish_figures(r, saturation);
  return r;
}

RowFigures figures_of_counterfactual(const RowSums& sums, double c, const KeyWeights& keys,
                                     double saturation) {
  // q_j = e_j / Z: max q = 1 / Z (e = 1 at the top score), H = −Σ q log q = log Z − Σ e·d / Z.
  const double ties = static_cast<double>(std::max<int64_t>(sums.n_at_top - 1, 0));
  const double z = static_cast<double>(sums.n_at_top) + sums.rest_e;
  RowFigures r;
  r.n_allowed = static_cast<int>(sums.n);
  r.max_weight = 1.0 / z;
  r.entropy = std::log(z) - sums.e_d / z;
  r.top_gap = sums.n >= 2 ? (double(sums.top1) - double(sums.top2)) * c : k_nan;
  r.jacobian_norm =
      jacobian_from_rest(1.0 / z, (ties + sums.rest_e) / z, (ties + sums.rest_e2) / (z * z),
                         (ties + sums.rest_e3) / (z * z * z));
  set_key_weights(r, keys);
  finish_figures(r, saturation);
  return r;
}

void RowSummary::add(const RowFigures& row) {
  ++rows;
  if (row.n_allowed >= 2) ++choice_rows;
  if (row.saturated) ++saturated_rows;
  max_weight.add(row.max_weight);
  entropy.add(row.entropy);
  entropy_normalized.add(row.entropy_normalized);
  effective_keys.add(row.effective_keys);
  top_gap.add(row.top_gap);
  jacobian_norm.add(row.jacobian_norm);
  first_key.add(row.first_key);
  previous.add(row.previous);
  diagonal.add(row.diagonal);
  if (row.n_allowed >= 2 && std::isfinite(row.max_weight)) {
    ++max_weight_histogram[histogram_bin(row.max_weight)];
  }
}

void RowSummary::merge(const RowSummary& other) {
  rows += other.rows;
  choice_rows += other.choice_rows;
  saturated_rows += other.saturated_rows;
  max_weight.merge(other.max_weight);
  entropy.merge(other.entropy);
  entropy_normalized.merge(other.entropy_normalized);
  effective_keys.merge(other.effective_keys);
  top_gap.merge(other.top_gap);
  jacobian_norm.merge(other.jacobian_norm);
  first_key.merge(other.first_key);
  previous.merge(other.previous);
  diagonal.merge(other.diagonal);
  for (int b = 0; b < k_histogram_bins; ++b)
    max_weight_histogram[b] += other.max_weight_histogram[b];
}

double RowSummary::saturated_share() const {
  return choice_rows == 0 ? k_nan
                          : static_cast<double>(saturated_rows) / static_cast<double>(choice_rows);
}

}  // namespace attnviz
