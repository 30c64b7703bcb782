// Row statistics against hand calculations: uniform and one-hot rows, the Jacobian norm against the
// explicit matrix, masked keys, and the accumulators against direct sums.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "attnviz/analysis/row_stats.hpp"

using namespace attnviz;

namespace {
std::vector<uint8_t> all_allowed(size_t n) {
  return std::vector<uint8_t>(n, 1);
}
}  // namespace

TEST_CASE(
    "analysis rows: a uniform row has entropy log n, n effective keys, and is not saturated") {
  for (int n : {2, 4, 7, 100}) {
    CAPTURE(n);
    const std::vector<float> p(n, 1.0f / n);
    const std::vector<double> logits(n, 0.5);
    const auto r = row_figures(p, logits, all_allowed(n), 3, 0.99);
    CHECK(r.n_allowed == n);
    CHECK(r.max_weight == doctest::Approx(1.0 / n));
    CHECK(r.entropy == doctest::Approx(std::log(double(n))).epsilon(1e-6));
    CHECK(r.entropy_normalized == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(r.effective_keys == doctest::Approx(double(n)).epsilon(1e-6));
    CHECK(r.top_gap == 0.0);
    CHECK_FALSE(r.saturated);
    // ‖J‖_F² = n (1/n − 1/n²)² + n(n−1)/n⁴ = 1/n − 1/n²
    CHECK(r.jacobian_norm ==
          doctest::Approx(std::sqrt(1.0 / n - 1.0 / (double(n) * n))).epsilon(1e-6));
  }
}

TEST_CASE(
    "analysis rows: a one-hot row has entropy 0, one effective key, is saturated, Jacobian 0") {
  const std::vector<float> p = {0.0f, 1.0f, 0.0f, 0.0f};
  const std::vector<double> logits = {0.0, 30.0, -1.0, 2.0};
  const auto r = row_figures(p, logits, all_allowed(4), 2, 0.99);
  CHECK(r.max_weight == 1.0);
  CHECK(r.entropy == 0.0);
  CHECK(r.entropy_normalized == 0.0);
  CHECK(r.effective_keys == 1.0);
  CHECK(r.top_gap == 28.0);  // 30 − 2
  CHECK(r.jacobian_norm == 0.0);
  CHECK(r.saturated);
  CHECK(r.first_key == 0.0);
  CHECK(r.previous == 1.0);  // query 2: key 1 is the previous token
  CHECK(r.diagonal == 0.0);
}

TEST_CASE(
    "analysis rows: the Jacobian norm equals the Frobenius norm of the explicit diag(p) - p pᵀ") {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  double sq = 0.0;
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 4; ++j) {
      const double jij = (i == j ? double(p[i]) : 0.0) - double(p[i]) * p[j];
      sq += jij * jij;
    }
  }
  CHECK(softmax_jacobian_norm(p, all_allowed(4)) == doctest::Approx(std::sqrt(sq)).epsilon(1e-9));
  // Two keys at [1/2, 1/2]: J = [[1/4, −1/4], [−1/4, 1/4]], ‖J‖_F = 1/2.
  const std::vector<float> half = {0.5f, 0.5f};
  CHECK(softmax_jacobian_norm(half, all_allowed(2)) == doctest::Approx(0.5));
}

TEST_CASE(
    "analysis rows: masked keys are left out, one allowed key has no normalised entropy or gap") {
  const std::vector<float> p = {0.5f, 0.0f, 0.5f};
  const std::vector<double> logits = {1.0, 0.0, 1.0};
  const std::vector<uint8_t> allowed = {1, 0, 1};
  auto r = row_figures(p, logits, allowed, 0, 0.99);
  CHECK(r.n_allowed == 2);
  CHECK(r.entropy == doctest::Approx(std::log(2.0)));
  CHECK(r.entropy_normalized == doctest::Approx(1.0));
  CHECK(std::isnan(r.previous));  // query 0 has no previous token

  const std::vector<float> one = {1.0f, 0.0f, 0.0f};
  r = row_figures(one, logits, std::vector<uint8_t>{1, 0, 0}, 0, 0.99);
  CHECK(r.n_allowed == 1);
  CHECK(std::isnan(r.entropy_normalized));
  CHECK(std::isnan(r.top_gap));
  CHECK_FALSE(r.saturated);  // one key: weight 1 by construction, not a saturated softmax
  // A query past the last key (cross-attention) has no diagonal.
  r = row_figures(one, logits, std::vector<uint8_t>{1, 0, 0}, 5, 0.99);
  CHECK(std::isnan(r.diagonal));
}

TEST_CASE(
    "analysis rows: masked_softmax gives [2/3, 1/3] for logits [ln 2, 0] and 0 on masked keys") {
  const std::vector<double> logits = {std::log(2.0), 1000.0, 0.0};
  const std::vector<uint8_t> allowed = {1, 0, 1};
  std::vector<float> p(3);
  masked_softmax(logits, allowed, p);
  CHECK(p[0] == doctest::Approx(2.0 / 3.0));
  CHECK(p[1] == 0.0f);
  CHECK(p[2] == doctest::Approx(1.0 / 3.0));
  // Huge logits do not overflow (the max is subtracted).
  const std::vector<double> huge = {1e6, 1e6 - std::log(3.0)};
  std::vector<float> q(2);
  masked_softmax(huge, all_allowed(2), q);
  CHECK(q[0] == doctest::Approx(0.75));
}

TEST_CASE(
    "analysis rows: Summary and Moments merged in pieces equal one pass, NaN is not counted") {
  const std::vector<double> xs = {3.0, -1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};
  Summary whole, a, b;
  Moments mw, ma, mb;
  for (size_t i = 0; i < xs.size(); ++i) {
    whole.add(xs[i]);
    mw.add(xs[i]);
    (i < 3 ? a : b).add(xs[i]);
    (i < 3 ? ma : mb).add(xs[i]);
  }
  a.merge(b);
  ma.merge(mb);
  CHECK(a.count == 8);
  CHECK(a.mean() == doctest::Approx(29.0 / 8));
  CHECK(a.min == -1.0);
  CHECK(a.max == 9.0);
  // population variance: Σx² / n − mean² = 173/8 − (29/8)²
  const double var = 173.0 / 8 - (29.0 / 8) * (29.0 / 8);
  CHECK(ma.variance() == doctest::Approx(var).epsilon(1e-12));
  CHECK(mw.variance() == doctest::Approx(var).epsilon(1e-12));
  whole.add(std::nan(""));
  CHECK(whole.count == 8);
  CHECK(std::isnan(Summary{}.mean()));
}

TEST_CASE("analysis rows: histogram bins split [0, 1] in 20, with 1 in the last bin") {
  CHECK(histogram_bin(0.0) == 0);
  CHECK(histogram_bin(0.049) == 0);
  CHECK(histogram_bin(0.05) == 1);
  CHECK(histogram_bin(0.99) == 19);
  CHECK(histogram_bin(1.0) == 19);
}
