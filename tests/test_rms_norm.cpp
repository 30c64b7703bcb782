// RMSNorm (Zhang & Sennrich 2019) against hand calculations and its defining invariants.
#include <doctest/doctest.h>

#include <cmath>

#include "attnviz/compute/norm.hpp"
#include "attnviz/compute/rms_norm.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

TEST_CASE("rms_norm: [1, 2, 3, 4] by hand: mean(x²) = 7.5, y = x / sqrt(7.5) · g") {
  Matrix x(1, 4);
  x << 1, 2, 3, 4;
  RowVector g(4);
  g << 1, 1, 2, 2;
  const float r = 1.0f / std::sqrt(7.5f);  // (1 + 4 + 9 + 16) / 4 = 7.5
  Matrix expected(1, 4);
  expected << 1 * r, 2 * r, 2 * 3 * r, 2 * 4 * r;  // 0.365148, 0.730297, 2.190890, 2.921187
  check_close(rms_norm(x, LayerNormWeights{g, {}}, 0.0f), expected, 1e-6f, "rms_norm");
  CHECK(expected(0, 3) == doctest::Approx(2.921187).epsilon(1e-6));
}

TEST_CASE(
    "rms_norm: no re-centring (a constant row stays constant, unlike LayerNorm), eps keeps 0 "
    "finite") {
  const RowVector ones = RowVector::Ones(4);
  const Matrix y = rms_norm(Matrix::Constant(1, 4, 3.0f), LayerNormWeights{ones, {}}, 1e-6f);
  check_close(y, Matrix::Ones(1, 4), 1e-6f, "constant row");  // 3 / sqrt(9 + 1e-6) ≈ 1
  CHECK(rms_norm(Matrix::Zero(1, 4), LayerNormWeights{ones, {}}, 1e-6f).isZero(0.0f));
}

TEST_CASE(
    "rms_norm: scale-invariant, rms_norm(c·x) = rms_norm(x) for c > 0 (the paper's re-scaling "
    "invariance)") {
  Matrix x(2, 3);
  x << 0.5f, -1.5f, 2.0f, 3.0f, 0.25f, -0.75f;
  RowVector g(3);
  g << 0.9f, 1.1f, -0.4f;
  const LayerNormWeights w{g, {}};
  check_close(rms_norm(7.0f * x, w, 0.0f), rms_norm(x, w, 0.0f), 1e-6f, "rms_norm(7x)");
}

TEST_CASE("normalize: the config's norm kind picks LayerNorm or RMSNorm, with its eps") {
  Matrix x(1, 4);
  x << 1, 2, 3, 4;
  const LayerNormWeights w{RowVector::Ones(4), {}};
  Config c;
  c.layer_norm_eps = 0.0f;
  const float s = 1.0f / std::sqrt(1.25f);  // LayerNorm: mean 2.5, variance 1.25
  Matrix ln(1, 4);
  ln << -1.5f * s, -0.5f * s, 0.5f * s, 1.5f * s;
  check_close(normalize(x, w, c), ln, 1e-6f, "layer_norm");
  c.norm = NormKind::rms_norm;
  check_close(normalize(x, w, c), x / std::sqrt(7.5f), 1e-6f, "rms_norm");
}
