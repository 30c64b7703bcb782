// The row-statistics kernel against a plain double reference on every SIMD target the CPU has:
// awkward lengths (0, 1, 7, 17, 1000: tails), ties, near one-hot rows, NaN / ±inf; and the
// figures made from its sums against row_figures, key by key.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/analysis/row_kernel.hpp"
#include "attnviz/analysis/row_stats.hpp"
#include "attnviz/core/random.hpp"
#include "row_reference.hpp"

using namespace attnviz;

namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();

struct Row {
  std::vector<float> p, s;
};

// s ~ N(0, spread²), p = softmax(s) in double, rounded to float.
Row random_row(Random& rng, size_t n, double spread) {
  Row r;
  for (size_t j = 0; j < n; ++j) r.s.push_back(static_cast<float>(spread * rng.normal()));
  const std::vector<uint8_t> allowed(n, 1);
  std::vector<double> logits(r.s.begin(), r.s.end());
  r.p.resize(n);
  masked_softmax(logits, allowed, r.p);
  return r;
}

// RowSums by their definitions, term by term in double.
RowSums reference_sums(const Row& row, double c) {
  RowSums x;
  const size_t n = row.p.size();
  x.n = static_cast<int64_t>(n);
  x.max_weight = x.top1 = x.top2 = -k_inf;
  for (size_t j = 0; j < n; ++j) {
    x.max_weight = std::max(x.max_weight, row.p[j]);
    const float s = row.s[j];
    if (s > x.top1) {
      x.top2 = x.top1;
      x.top1 = s;
    } else if (s > x.top2) {
      x.top2 = s;
    }
    x.score_sum += s;
  }
  const double mean = x.score_sum / double(n);
  for (size_t j = 0; j < n; ++j) {
    const double p = row.p[j], s = row.s[j];
    x.p_sum += p;
    x.p_gap += p * (s - x.top1);
    if (row.p[j] == x.max_weight) {
      ++x.n_at_max;
    } else {
      x.rest_p2 += p * p;
      x.rest_p3 += p * p * p;
    }
    const double d = c * (s - x.top1), e = std::exp(d);
    x.e_d += e * d;
    if (row.s[j] == x.top1) {
      ++x.n_at_top;
      x.p_top = std::max(x.p_top, row.p[j]);
    } else {
      x.rest_e += e;
      x.rest_e2 += e * e;
      x.rest_e3 += e * e * e;
    }
    x.score_m2 += (s - mean) * (s - mean);
  }
  return x;
}

// Relative 2e-6 (float terms, d = c·(s − top1) rounded in float) above an absolute floor.
void check_sum(double actual, double expected, const std::string& what) {
  CAPTURE(what);
  CHECK(std::fabs(actual - expected) <= 2e-6 * std::fabs(expected) + 1e-30);
}

void check_sums(const RowSums& a, const RowSums& x) {
  REQUIRE(a.finite);
  CHECK(a.n == x.n);
  CHECK(a.max_weight == x.max_weight);
  CHECK(a.top1 == x.top1);
  CHECK(a.top2 == x.top2);
  CHECK(a.n_at_max == x.n_at_max);
  CHECK(a.n_at_top == x.n_at_top);
  CHECK(a.p_top == x.p_top);
  check_sum(a.p_sum, x.p_sum, "p_sum");
  check_sum(a.p_gap, x.p_gap, "p_gap");
  check_sum(a.rest_p2, x.rest_p2, "rest_p2");
  check_sum(a.rest_p3, x.rest_p3, "rest_p3");
  check_sum(a.score_sum, x.score_sum, "score_sum");
  check_sum(a.score_m2, x.score_m2, "score_m2");
  check_sum(a.rest_e, x.rest_e, "rest_e");
  check_sum(a.e_d, x.e_d, "e_d");
  check_sum(a.rest_e2, x.rest_e2, "rest_e2");
  check_sum(a.rest_e3, x.rest_e3, "rest_e3");
}

// Runs body once per SIMD target compiled in and supported here (AVX-512, AVX2, SSE4, …).
template <class Body>
void for_each_target(Body body) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string target_name = hwy::TargetName(target);
    CAPTURE(target_name);
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace

TEST_CASE(
    "row kernel: sums equal a double reference at lengths 0, 1, 7, 17, 1000 on every target") {
  for_each_target([] {
    Random rng(11);
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{17}, size_t{33}, size_t{1000}}) {
      for (double spread : {0.5, 4.0, 30.0}) {  // broad, peaked, one-hot to float precision
        CAPTURE(n);
        CAPTURE(spread);
        const Row row = random_row(rng, n, spread);
        for (double c : {1.0, 8.0}) {
          const RowSums a = row_sums(row.p.data(), row.s.data(), n, static_cast<float>(c));
          if (n == 0) {
            CHECK(a.finite);
            CHECK(a.n == 0);
            CHECK(a.top1 == -k_inf);
            continue;
          }
          check_sums(a, reference_sums(row, c));
        }
      }
    }
  });
}

TEST_CASE("row kernel: ties at the top score and at the max weight are counted, one left out") {
  for_each_target([] {
    // 19 keys (vector + tail): scores 2 at keys 3 and 18, 0 elsewhere; p = softmax.
    Row row;
    row.s.assign(19, 0.0f);
    row.s[3] = row.s[18] = 2.0f;
    std::vector<double> logits(row.s.begin(), row.s.end());
    row.p.resize(19);
    masked_softmax(logits, std::vector<uint8_t>(19, 1), row.p);
    const RowSums a = row_sums(row.p.data(), row.s.data(), 19, 1.0f);
    CHECK(a.n_at_top == 2);
    CHECK(a.n_at_max == 2);
    CHECK(a.top2 == 2.0f);
    check_sums(a, reference_sums(row, 1.0));
    // the figures: Z = 2 + 17 e⁻², max q = 1 / Z, top gap 0
    const RowFigures f = figures_of_counterfactual(a, 1.0, {}, 0.99);
    CHECK(f.max_weight == doctest::Approx(1.0 / (2 + 17 * std::exp(-2.0))));
    CHECK(f.top_gap == 0.0);
  });
}

TEST_CASE("row kernel: NaN or ±inf anywhere (vector body or tail) makes the row not finite") {
  for_each_target([] {
    Random rng(5);
    for (size_t n : {size_t{1}, size_t{17}, size_t{1000}}) {
      for (size_t at : {size_t{0}, n - 1}) {
        for (float bad : {std::numeric_limits<float>::quiet_NaN(), k_inf, -k_inf}) {
          CAPTURE(n);
          CAPTURE(at);
          CAPTURE(bad);
          Row row = random_row(rng, n, 1.0);
          row.s[at] = bad;  // a masked key would hold −inf; here it is an allowed one
          CHECK_FALSE(row_sums(row.p.data(), row.s.data(), n, 1.0f).finite);
          row = random_row(rng, n, 1.0);
          row.p[at] = bad;
          CHECK_FALSE(row_sums(row.p.data(), row.s.data(), n, 1.0f).finite);
        }
      }
    }
  });
}

void check_figures(const RowFigures& actual, const RowFigures& expected) {
  CHECK(actual.n_allowed == expected.n_allowed);
  CHECK(actual.max_weight == doctest::Approx(expected.max_weight).epsilon(1e-6));
  CHECK(actual.entropy == doctest::Approx(expected.entropy).epsilon(2e-6).scale(1e-9));
  CHECK(actual.entropy_normalized ==
        doctest::Approx(expected.entropy_normalized).epsilon(2e-6).scale(1e-9));
  CHECK(actual.effective_keys == doctest::Approx(expected.effective_keys).epsilon(2e-6));
  CHECK(actual.top_gap == doctest::Approx(expected.top_gap).epsilon(1e-12));
  CHECK(actual.jacobian_norm == doctest::Approx(expected.jacobian_norm).epsilon(1e-5).scale(1e-12));
  CHECK(actual.saturated == expected.saturated);
  CHECK(actual.first_key == expected.first_key);
  CHECK(actual.previous == expected.previous);
}

TEST_CASE("row kernel: figures from the sums equal row_figures and a double counterfactual") {
  Random rng(3);
  for (size_t n : {size_t{2}, size_t{7}, size_t{17}, size_t{1000}}) {
    for (double spread : {0.5, 4.0, 12.0, 30.0}) {
      CAPTURE(n);
      CAPTURE(spread);
      const Row row = random_row(rng, n, spread);
      const std::vector<uint8_t> allowed(n, 1);
      const std::vector<double> logits(row.s.begin(), row.s.end());
      const RowSums sums = row_sums(row.p.data(), row.s.data(), n, 0.5f);
      const int query = 1;
      const KeyWeights keys{row.p[0], row.p[0], row.p[1]};
      RowFigures expected = row_figures(row.p, logits, allowed, query, 0.99);
      // row_figures' Σ p² − 2 Σ p³ + (Σ p²)² cancels near one-hot rows (noise ~1e-8 in J): the
      // explicit norm is the reference
      expected.jacobian_norm =
          test::explicit_jacobian(std::vector<double>(row.p.begin(), row.p.end()), false);
      check_figures(figures_of_probs(sums, keys, 0.99), expected);

      // the counterfactual softmax(0.5 · s), by its definitions in double
      std::vector<double> half(logits);
      for (double& l : half) l *= 0.5;
      const RowFigures x = test::double_softmax_figures(half, allowed, query, 0.99);
      check_figures(
          figures_of_counterfactual(sums, 0.5, {x.first_key, x.previous, x.diagonal}, 0.99), x);
    }
  }
}

TEST_CASE("row kernel: the Jacobian norm of a near one-hot row keeps its digits (no 1 − 2 + 1)") {
  // p = [1 − 3ε, ε, ε, ε] with ε = 1e-6: ‖J‖_F² = Σ p² − 2 Σ p³ + (Σ p²)², by hand in double.
  const float eps = 1e-6f, top = 1.0f - 3 * eps;
  Row row{{top, eps, eps, eps}, {10.0f, -3.8f, -3.8f, -3.8f}};
  double s2 = 0, s3 = 0;
  for (float p : row.p) {
    s2 += double(p) * p;
    s3 += double(p) * p * p;
  }
  const double expected = std::sqrt(s2 - 2 * s3 + s2 * s2);  // ≈ 3.46e-6
  const RowSums sums = row_sums(row.p.data(), row.s.data(), 4, 1.0f);
  CHECK(figures_of_probs(sums, {}, 0.99).jacobian_norm == doctest::Approx(expected).epsilon(1e-4));
}
