// The SIMD kernels against plain scalar double loops, on lengths with and without a vector tail
// and on the special values (−inf, +inf, NaN) each promises something for.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/core/random.hpp"
#include "attnviz/core/vector_math.hpp"

using namespace attnviz;

namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();
constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
// 0 and 1 (nothing, one lane), below, at and past one vector of 4 / 8 / 16 lanes, and long ones.
const std::vector<size_t> k_lengths = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 1000, 1021};

std::vector<float> random_values(size_t n, float lo, float hi, uint64_t seed) {
  Random rng(seed);
  std::vector<float> x(n);
  for (float& v : x) v = rng.uniform(lo, hi);
  return x;
}

// |actual − expected| within `ulps` float ulps of expected (relative), or an absolute floor.
bool near(float actual, double expected, double ulps, double floor = 0.0) {
  return std::abs(actual - expected) <= ulps * 1.1920929e-7 * std::abs(expected) + floor;
}

}  // namespace

TEST_CASE("vector math: max_of is the largest value, NaN wherever a NaN is, −inf when empty") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -50.0f, 50.0f, n + 1);
    double expected = -INFINITY;
    for (float v : x) expected = std::max(expected, double(v));
    CHECK(max_of(x.data(), n) == float(expected));
    for (size_t at : {size_t{0}, n / 2, n - 1}) {  // the first lane, a middle one, the tail
      if (n == 0) break;
      auto y = x;
      y[at] = k_nan;
      CHECK_MESSAGE(std::isnan(max_of(y.data(), n)), "n = " << n << ", NaN at " << at);
    }
  }
  const std::vector<float> masked(19, -k_inf);
  CHECK(max_of(masked.data(), 19) == -k_inf);
  std::vector<float> with_inf(17, 0.0f);
  with_inf[1] = k_inf, with_inf[2] = -k_inf, with_inf[3] = 2.0f;
  CHECK(max_of(with_inf.data(), with_inf.size()) == k_inf);
}

TEST_CASE("vector math: exp_shifted is exp(x − shift) within 1 ulp, exactly 0 below ln(FLT_MIN)") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -120.0f, 3.0f, 100 + n);
    if (n > 2) x[1] = -k_inf, x[n - 1] = -k_inf;  // masked keys, one of them in the tail
    std::vector<float> y(n, -1.0f);
    const float shift = 3.0f;
    const float sum = exp_shifted(x.data(), y.data(), n, shift);
    double expected_sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const double t = double(x[i] - shift);  // the argument in float, as softmax forms it
      if (t < std::log(double(std::numeric_limits<float>::min()))) {
        REQUIRE_MESSAGE(y[i] == 0.0f, "x = " << x[i] << " at " << i << " of " << n);
        continue;
      }
      const double e = std::exp(t);
      expected_sum += e;
      REQUIRE_MESSAGE(near(y[i], e, 1.0), "x = " << x[i] << ": " << y[i] << " vs " << e);
    }
    CHECK(near(sum, expected_sum, 4.0, 1e-30));
  }
  float at_zero = 5.0f;  // in place, the max element: exp(0) = 1 exactly
  CHECK(exp_shifted(&at_zero, &at_zero, 1, 5.0f) == 1.0f);
  CHECK(at_zero == 1.0f);
}

TEST_CASE("vector math: scale_in_place multiplies every element, tails included") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -2.0f, 2.0f, 200 + n);
    const auto before = x;
    scale_in_place(x.data(), n, 0.37f);
    for (size_t i = 0; i < n; ++i) REQUIRE(x[i] == before[i] * 0.37f);  // one float multiply, exact
  }
}

TEST_CASE("vector math: all_finite finds a NaN or ±inf at any position") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -1e30f, 1e30f, 300 + n);
    CHECK(all_finite(x.data(), n));
    for (size_t at = 0; at < n; at += std::max<size_t>(1, n / 13)) {
      for (float bad : {k_nan, k_inf, -k_inf}) {
        auto y = x;
        y[at] = bad;
        REQUIRE_MESSAGE(!all_finite(y.data(), n), "n = " << n << ", " << bad << " at " << at);
      }
    }
  }
  const std::vector<float> big = {std::numeric_limits<float>::max(),
                                  -std::numeric_limits<float>::max()};
  CHECK(all_finite(big.data(), 2));  // the largest finite values are finite
  const std::vector<float> tiny(37, std::numeric_limits<float>::denorm_min());
  CHECK(all_finite(tiny.data(), tiny.size()));  // subnormals are finite
}

TEST_CASE("vector math: max_finite skips NaN and ±inf and never goes below the floor") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -3.0f, 3.0f, 500 + n);
    for (size_t at = 0; at < n; at += std::max<size_t>(1, n / 7))
      x[at] = at % 3 == 0 ? k_nan : (at % 3 == 1 ? k_inf : -k_inf);
    float want = 0.5f;  // the floor
    for (float v : x) {
      if (std::isfinite(v) && v > want) want = v;
    }
    REQUIRE_MESSAGE(max_finite(x.data(), n, 0.5f) == want, "n = " << n);
  }
}

TEST_CASE(
    "vector math: bins_256 bins (x − lo) / (hi − lo) as floor(256 t), clamped, NaN in bin 0") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -0.2f, 1.2f, 600 + n);
    if (n > 5) x[1] = k_nan, x[2] = k_inf, x[3] = -k_inf, x[4] = 1.0f, x[5] = 255.0f / 256.0f;
    std::vector<uint8_t> bins(n);
    bins_256(x.data(), n, 0.0f, 1.0f, bins.data());
    for (size_t i = 0; i < n; ++i) {
      // By hand: t = x clamped to [0, 1]; bin = min(floor(256 t), 255); NaN → 0.
      const float t = std::isnan(x[i]) ? 0.0f : std::min(std::max(x[i], 0.0f), 1.0f);
      const auto want = static_cast<uint8_t>(std::min(255.0, std::floor(256.0 * t)));
      REQUIRE_MESSAGE(bins[i] == want, "n = " << n << ", x = " << x[i]);
    }
  }
  std::vector<float> x = {0.3f, 7.0f};
  std::vector<uint8_t> bins(2, 9);
  bins_256(x.data(), 2, 1.0f, 1.0f, bins.data());  // an empty range: bin 0 for every value
  CHECK(bins == std::vector<uint8_t>{0, 0});
  x = {2.5f, 3.75f};
  bins_256(x.data(), 2, 2.0f, 4.0f, bins.data());  // t = 0.25 → 64, t = 0.875 → 224
  CHECK(bins == std::vector<uint8_t>{64, 224});
}

TEST_CASE("vector math: sum_abs_int8 reads bytes as signed, 0x80 as 128") {
  for (size_t n : k_lengths) {
    Random rng(700 + n);
    std::vector<uint8_t> x(n);
    uint64_t want = 0;
    for (auto& b : x) {
      b = static_cast<uint8_t>(rng.uniform(0.0f, 256.0f));
      want += static_cast<uint64_t>(std::abs(static_cast<int>(static_cast<int8_t>(b))));
    }
    REQUIRE_MESSAGE(sum_abs_int8(x.data(), n) == want, "n = " << n);
  }
  const std::vector<uint8_t> extremes = {0x80, 0x7F, 0xFF, 0x01, 0x00};
  CHECK(sum_abs_int8(extremes.data(), extremes.size()) == 128 + 127 + 1 + 1);
}

TEST_CASE("vector math: gelu_tanh_in_place against the double formula, NaN kept, ±inf as PyTorch") {
  for (size_t n : k_lengths) {
    auto x = random_values(n, -12.0f, 12.0f, 400 + n);
    const auto before = x;
    gelu_tanh_in_place(x.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const double v = before[i];
      const double expected =
          0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
      REQUIRE_MESSAGE(near(x[i], expected, 16.0, 1e-6), v << ": " << x[i] << " vs " << expected);
    }
  }
  std::vector<float> special = {k_nan, k_inf, 0.0f, -30.0f, 1.0f, 2.0f, 3.0f, 4.0f, k_nan};
  gelu_tanh_in_place(special.data(), special.size());
  CHECK(std::isnan(special[0]));
  CHECK(std::isnan(special[8]));  // in the tail
  CHECK(special[1] == k_inf);     // 0.5 · inf · (1 + 1)
  CHECK(special[2] == 0.0f);
  CHECK(special[3] == 0.0f);  // −30 · (1 + tanh(−large)) = −30 · 0
}

TEST_CASE(
    "vector math: finite_max of a strided block skips NaN and ±inf, floor when nothing is finite") {
  Matrix m(3, 4);
  m << 0.5f, k_nan, 9.0f, k_inf,  //
      -1.0f, 0.25f, 8.0f, 7.0f,   //
      k_inf, -k_inf, k_nan, 3.0f;
  // The left 2 columns (outer stride 4): finite values 0.5, -1, 0.25 → 0.5.
  CHECK(finite_max(m.leftCols(2), -10.0f) == 0.5f);
  CHECK(finite_max(m.leftCols(2), 2.0f) == 2.0f);                  // the floor is larger
  CHECK(finite_max(m.bottomRows(1).leftCols(3), 1e-6f) == 1e-6f);  // nothing finite: the floor
  CHECK(finite_max(m, 0.0f) == 9.0f);
  CHECK(finite_max(Matrix(0, 3), 4.0f) == 4.0f);
}
