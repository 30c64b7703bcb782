// Rotary position embedding (Su et al. 2021) in Hugging Face's rotate-half form, by hand and by
// invariant.
#include <doctest/doctest.h>

#include <cmath>

#include "attnviz/compute/rotary.hpp"
#include "attnviz/core/random.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

namespace {

// The same row vector at positions 0 … n−1.
Matrix repeated(const RowVector& v, int n) {
  return v.replicate(n, 1);
}

}  // namespace

TEST_CASE(
    "rotary: a 4-dim vector at positions 0, 1, 2 by hand (theta 100: frequencies 1 and 0.1)") {
  // rotary_dim 4: freq_i = 100^(−2i/4) = 1, 0.1; dim i turns with dim i + 2 (rotate_half pairing).
  RowVector v(4);
  v << 1, 2, 3, 4;
  Matrix x = repeated(v, 3);
  apply_rotary(x, rotary_table(3, 4, 100.0f));
  for (int pos = 0; pos < 3; ++pos) {
    const double a = pos * 1.0, b = pos * 0.1;
    Matrix expected(1, 4);
    expected << float(1 * std::cos(a) - 3 * std::sin(a)), float(2 * std::cos(b) - 4 * std::sin(b)),
        float(3 * std::cos(a) + 1 * std::sin(a)), float(4 * std::cos(b) + 2 * std::sin(b));
    CAPTURE(pos);
    check_close(x.row(pos), expected, 2e-6f, "rotated row");
  }
  // Position 1, first pair: (1, 3) → (cos 1 − 3 sin 1, 3 cos 1 + sin 1) = (−1.984111, 2.462377).
  CHECK(x(1, 0) == doctest::Approx(-1.9841109).epsilon(1e-5));
  CHECK(x(1, 2) == doctest::Approx(2.4623766).epsilon(1e-5));
  CHECK(x.row(0).cwiseEqual(v).all());  // position 0 is the identity
}

TEST_CASE("rotary: partial rotation (rotary_dim 4 of 6) leaves the last dims as they are") {
  RowVector v(6);
  v << 1, 2, 3, 4, 5, 6;
  Matrix x = repeated(v, 2);
  apply_rotary(x, rotary_table(2, 4, 10000.0f));
  CHECK(x(1, 4) == 5.0f);
  CHECK(x(1, 5) == 6.0f);
  CHECK(x(1, 0) == doctest::Approx(std::cos(1.0) - 3 * std::sin(1.0)).epsilon(1e-5));
  // Frequency of pair 1: 10000^(−2/4) = 0.01.
  CHECK(x(1, 1) == doctest::Approx(2 * std::cos(0.01) - 4 * std::sin(0.01)).epsilon(1e-5));
}

TEST_CASE(
    "rotary: q·k after rotation depends only on the position difference, and norms are kept") {
  Random rng(3);
  RowVector q(8), k(8);
  for (int i = 0; i < 8; ++i) q[i] = rng.normal(), k[i] = rng.normal();
  Matrix rq = repeated(q, 12), rk = repeated(k, 12);
  const RotaryTable table = rotary_table(12, 8, 10000.0f);
  apply_rotary(rq, table);
  apply_rotary(rk, table);
  for (int shift = 1; shift < 5; ++shift) {
    for (int m = 0; m + shift < 12; ++m) {
      for (int n = 0; n + shift < 12; ++n) {
        CAPTURE(m);
        CAPTURE(n);
        CHECK(rq.row(m + shift).dot(rk.row(n + shift)) ==
              doctest::Approx(rq.row(m).dot(rk.row(n))).epsilon(1e-4));
      }
    }
  }
  for (int pos = 0; pos < 12; ++pos)
    CHECK(rq.row(pos).norm() == doctest::Approx(q.norm()).epsilon(1e-6));
}

namespace {

// The angle of frequency i at position 1: inv_freq_i itself.
double frequency(const RotaryTable& t, int i) {
  return std::atan2(double(t.sin(1, i)), double(t.cos(1, i)));
}

}  // namespace

TEST_CASE(
    "rotary: llama3 scaling keeps short wavelengths, stretches long ones, blends between (by "
    "hand)") {
  // theta 500000, rotary_dim 8: inv_freq_i = 500000^(−i/4) = 1, 0.0376060, 0.00141421,
  // 0.0000531829. Original context 512, low/high freq factors 1 and 4: wavelengths above 512 are
  // divided by 8, below 128 kept. 2π/1 = 6.28 is kept; 2π/0.0376060 = 167.08 is between: smooth =
  // (512/167.08 − 1)/3 = 0.688137, so inv = 0.0376060 · ((1 − 0.688137)/8 + 0.688137) = 0.0273442;
  // the other two are / 8.
  RopeScaling s{RopeScaling::Kind::llama3, 8.0f, 1.0f, 4.0f, 512, {}};
  const RotaryTable t = rotary_table(2, 8, 500000.0f, s);
  CHECK(frequency(t, 0) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(frequency(t, 1) == doctest::Approx(0.0273442).epsilon(1e-5));
  CHECK(frequency(t, 2) == doctest::Approx(0.00141421 / 8).epsilon(1e-5));
  CHECK(frequency(t, 3) == doctest::Approx(0.0000531829 / 8).epsilon(1e-5));
}

TEST_CASE("rotary: linear scaling turns position p as the unscaled table turns p / factor") {
  const RopeScaling linear{RopeScaling::Kind::linear, 4.0f, 1.0f, 4.0f, 0, {}};
  const RotaryTable scaled = rotary_table(9, 8, 10000.0f, linear);
  const RotaryTable plain = rotary_table(3, 8, 10000.0f);
  for (int i = 0; i < 4; ++i) {
    CHECK(scaled.cos(4, i) == doctest::Approx(plain.cos(1, i)).epsilon(1e-5));  // 4 / 4 = 1
    CHECK(scaled.sin(8, i) == doctest::Approx(plain.sin(2, i)).epsilon(1e-5));  // 8 / 4 = 2
  }
}
