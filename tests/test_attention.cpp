// Scaled dot-product attention against hand calculations, a naive reference and invariants.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "attnviz/compute/attention.hpp"
#include "attnviz/core/random.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

namespace {

Matrix random_matrix(Random& rng, int rows, int cols) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
  return m;
}

// Collects the probabilities of every block into one map.
struct Collected {
  Matrix probs, scores;
  std::vector<std::pair<int, int>> blocks;
};

Collected run(Matrix& out, const Matrix& q, const Matrix& k, const Matrix& v, const Mask& mask,
              float scale, int block_rows) {
  Collected c{Matrix::Constant(q.rows(), k.rows(), -7.0f), Matrix(q.rows(), k.rows()), {}};
  out.resize(q.rows(), v.cols());
  scaled_dot_product_attention(
      out, q, k, v, mask, scale, block_rows,
      [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p, const float*) {
        c.probs.middleRows(r0, r1 - r0) = p;
        c.scores.middleRows(r0, r1 - r0) = s;
        c.blocks.emplace_back(r0, r1);
      });
  return c;
}

// The textbook triple loop: s_ij = scale Σ_d q_id k_jd; p = softmax over allowed j; o = p v.
Matrix naive_attention(const Matrix& q, const Matrix& k, const Matrix& v, const Mask& mask,
                       float scale, Matrix& probs) {
  const int n_q = int(q.rows()), n_k = int(k.rows());
  probs = Matrix::Zero(n_q, n_k);
  Matrix out = Matrix::Zero(n_q, v.cols());
  for (int i = 0; i < n_q; ++i) {
    std::vector<double> s(n_k);
    double mx = -INFINITY;
    for (int j = 0; j < n_k; ++j) {
      double dot = 0;
      for (int d = 0; d < q.cols(); ++d) dot += double(q(i, d)) * k(j, d);
      s[j] = dot * scale;
      if (mask.allowed(i, j, n_k)) mx = std::max(mx, s[j]);
    }
    double z = 0;
    for (int j = 0; j < n_k; ++j) z += mask.allowed(i, j, n_k) ? std::exp(s[j] - mx) : 0.0;
    for (int j = 0; j < n_k; ++j) {
      probs(i, j) = mask.allowed(i, j, n_k) ? float(std::exp(s[j] - mx) / z) : 0.0f;
      for (int d = 0; d < v.cols(); ++d) out(i, d) += probs(i, j) * v(j, d);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("attention: 2x2 by hand — scores [ln 2, 0] give weights [2/3, 1/3]") {
  Matrix q(1, 1), k(2, 1), v(2, 2), out;
  q << std::log(2.0f);
  k << 1.0f, 0.0f;
  v << 3.0f, 0.0f, 0.0f, 3.0f;
  auto c = run(out, q, k, v, Mask{}, 1.0f, 64);
  CHECK(c.probs(0, 0) == doctest::Approx(2.0 / 3.0).epsilon(1e-6));
  CHECK(c.probs(0, 1) == doctest::Approx(1.0 / 3.0).epsilon(1e-6));
  CHECK(out(0, 0) == doctest::Approx(2.0).epsilon(1e-6));  // 2/3·3 + 1/3·0
  CHECK(out(0, 1) == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("attention: 3x3 by hand with d_k = 4, scale 1/2, with and without the causal mask") {
  const float l2 = std::log(2.0f), l3 = std::log(3.0f);
  Matrix q(3, 4), k(3, 4), v(3, 2), out;
  q << 2 * l2, 0, 0, 0,  //
      0, 2 * l3, 0, 0,   //
      0, 0, 0, 0;
  k << 1, 0, 0, 0,  //
      0, 1, 0, 0,   //
      0, 0, 1, 0;
  v << 1, 0,  //
      0, 1,   //
      1, 1;
  const float scale = 1.0f / std::sqrt(4.0f);
  Matrix expected(3, 3);
  // row 0: exp([ln2, 0, 0]) = [2, 1, 1] → /4; row 1: [1, 3, 1] → /5; row 2: uniform
  expected << 0.5f, 0.25f, 0.25f, 0.2f, 0.6f, 0.2f, 1 / 3.f, 1 / 3.f, 1 / 3.f;
  auto c = run(out, q, k, v, Mask{}, scale, 2);
  check_close(c.probs, expected, 1e-6f, "unmasked probs");
  Matrix expected_out(3, 2);
  expected_out << 0.75f, 0.5f, 0.4f, 0.8f, 2 / 3.f, 2 / 3.f;
  check_close(out, expected_out, 1e-6f, "unmasked output");
  CHECK(c.blocks == std::vector<std::pair<int, int>>{{0, 2}, {2, 3}});

  Mask causal;
  causal.causal = true;
  // row 0: [1, 0, 0]; row 1: exp([0, ln3]) = [1, 3] → /4; row 2: uniform
  expected << 1, 0, 0, 0.25f, 0.75f, 0, 1 / 3.f, 1 / 3.f, 1 / 3.f;
  c = run(out, q, k, v, causal, scale, 2);
  check_close(c.probs, expected, 1e-6f, "causal probs");
  CHECK(std::isinf(c.scores(0, 1)));  // masked scores are -inf, as masked_fill leaves them
  CHECK(c.scores(0, 1) < 0);
}

TEST_CASE("attention: random inputs match the naive triple loop, every mask, every block size") {
  Random rng(7);
  const Matrix q = random_matrix(rng, 37, 16), k = random_matrix(rng, 41, 16),
               v = random_matrix(rng, 41, 8);
  Mask pad;
  pad.n_pad_keys = 5;
  Mask causal_pad = pad;
  causal_pad.causal = true;
  Mask window;
  window.window = 3;
  window.causal = true;
  Mask symmetric;  // a window without causality: keys on both sides of the query
  symmetric.window = 6;
  Mask file;
  file.matrix = MaskMatrix(37, 41);
  for (Eigen::Index i = 0; i < file.matrix->size(); ++i)
    file.matrix->data()[i] = rng.next_u64() % 3 != 0;
  for (const Mask* mask : {&pad, &causal_pad, &window, &symmetric, &file}) {
    for (int block : {1, 8, 37, 100}) {
      Matrix out, probs;
      const Matrix expected = naive_attention(q, k, v, *mask, 0.25f, probs);
      auto c = run(out, q, k, v, *mask, 0.25f, block);
      check_close(c.probs, probs, 1e-6f, "probs " + mask->describe());
      check_close(out, expected, 1e-5f, "output " + mask->describe());
    }
  }
}

TEST_CASE("attention: blocks are contiguous, in order, at most block_rows, and cover every query") {
  Random rng(11);
  const Matrix q = random_matrix(rng, 300, 8), k = random_matrix(rng, 300, 8),
               v = random_matrix(rng, 300, 4);
  Mask causal;
  causal.causal = true;
  for (const Mask& mask : {causal, Mask{}}) {
    for (int block : {1, 7, 64, 256, 400}) {
      Matrix out, probs;
      const Matrix expected = naive_attention(q, k, v, mask, 0.3f, probs);
      const auto c = run(out, q, k, v, mask, 0.3f, block);
      CAPTURE(block);
      REQUIRE_FALSE(c.blocks.empty());
      int next = 0;
      for (const auto& [r0, r1] : c.blocks) {
        CHECK(r0 == next);
        CHECK(r1 > r0);
        CHECK(r1 - r0 <= block);
        next = r1;
      }
      CHECK(next == 300);
      check_close(c.probs, probs, 1e-6f, "probs " + mask.describe());
      check_close(out, expected, 1e-5f, "output " + mask.describe());
    }
  }
}

TEST_CASE("attention: --window 2147483647 sees every key (i + window must not overflow)") {
  Random rng(11);
  const Matrix q = random_matrix(rng, 9, 8), k = random_matrix(rng, 9, 8),
               v = random_matrix(rng, 9, 4);
  Mask wide;
  wide.window = std::numeric_limits<int>::max();  // |i - j| < window holds for every pair
  Matrix out, probs;
  const Matrix expected = naive_attention(q, k, v, Mask{}, 0.5f, probs);  // no mask at all
  auto c = run(out, q, k, v, wide, 0.5f, 4);
  check_close(c.probs, probs, 1e-6f, "probs window(INT_MAX) vs none");
  check_close(out, expected, 1e-5f, "output window(INT_MAX) vs none");
}

TEST_CASE(
    "attention: a window past the last key (more queries than keys) gives zero rows, in bounds") {
  // 10 queries, 5 keys, |i - j| < 3: query 6 sees key 4 only, queries 7-9 see none. The allowed
  // range of query 8 starts at key 6, past the row's end (an out-of-bounds write before the fix).
  Random rng(12);
  const Matrix q = random_matrix(rng, 10, 4), k = random_matrix(rng, 5, 4),
               v = random_matrix(rng, 5, 3);
  Mask window;
  window.window = 3;
  Matrix out, probs;
  const Matrix expected = naive_attention(q, k, v, window, 0.5f, probs);
  auto c = run(out, q, k, v, window, 0.5f, 4);
  CHECK(c.probs(6, 4) == 1.0f);
  for (int i = 7; i < 10; ++i) CHECK(c.probs.row(i).isZero(0.0f));
  check_close(c.probs, probs, 1e-6f, "probs of a window past the keys");
  check_close(out, expected, 1e-5f, "output of a window past the keys");
}

TEST_CASE("attention: every row sums to 1 and the causal upper triangle is exactly 0") {
  Random rng(3);
  const Matrix x = random_matrix(rng, 50, 32);
  Mask causal;
  causal.causal = true;
  Matrix out;
  auto c = run(out, x, x, x, causal, 1.0f / std::sqrt(32.0f), 16);
  for (int i = 0; i < 50; ++i) {
    CHECK(c.probs.row(i).sum() == doctest::Approx(1.0).epsilon(1e-5));
    for (int j = i + 1; j < 50; ++j) REQUIRE(c.probs(i, j) == 0.0f);
  }
  CHECK(c.probs(0, 0) == 1.0f);  // causal: row 0 is [1, 0, 0, …]
}

TEST_CASE("attention: a row with every key masked is a zero row, never NaN or uniform") {
  Random rng(5);
  const Matrix x = random_matrix(rng, 4, 8);
  Mask m;
  m.matrix = MaskMatrix::Ones(4, 4);
  m.matrix->row(2).setZero();
  Matrix out;
  auto c = run(out, x, x, x, m, 1.0f, 4);
  CHECK(c.probs.row(2).isZero(0.0f));
  CHECK(out.row(2).isZero(0.0f));
  CHECK(c.probs.allFinite());
  CHECK(fully_masked_rows(m, 4, 4) == std::vector<int>{2});

  Mask all;  // torch.zeros, as an annotated-transformer demo passes it: every key of every row
             // masked
  all.matrix = MaskMatrix::Zero(4, 4);
  c = run(out, x, x, x, all, 1.0f, 4);
  CHECK(c.probs.isZero(0.0f));
  CHECK(fully_masked_rows(all, 4, 4).size() == 4);
}

TEST_CASE(
    "attention: self-attention without positions is permutation-equivariant, f(s(x)) = s(f(x))") {
  Random rng(11);
  const Matrix x = random_matrix(rng, 9, 12);
  std::vector<int> perm(9);
  std::iota(perm.begin(), perm.end(), 0);
  std::reverse(perm.begin(), perm.begin() + 5);
  std::swap(perm[6], perm[8]);
  Matrix xs(9, 12);
  for (int i = 0; i < 9; ++i) xs.row(i) = x.row(perm[i]);
  Matrix fx, fsx;
  run(fx, x, x, x, Mask{}, 0.3f, 4);
  run(fsx, xs, xs, xs, Mask{}, 0.3f, 4);
  Matrix sfx(9, 12);
  for (int i = 0; i < 9; ++i) sfx.row(i) = fx.row(perm[i]);
  check_close(fsx, sfx, 1e-5f, "f(s(x)) vs s(f(x))");
}

TEST_CASE("attention: softmax is stable for huge logits (row max subtracted)") {
  Matrix q(1, 1), k(3, 1), v = Matrix::Identity(3, 3), out;
  q << 1000.0f;
  k << 1.0f, 0.999f, -1.0f;
  auto c = run(out, q, k, v, Mask{}, 1.0f, 1);
  CHECK(c.probs.allFinite());
  CHECK(c.probs(0, 0) == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-3));
}

TEST_CASE("attention: the test helper check_close treats NaN as a mismatch wherever it is") {
  const std::vector<float> actual{NAN, 0.0f, 0.0f}, expected{0.0f, 0.0f, 0.0f};
  const auto r = attnviz::test::compare_close(actual, expected, 1e-5f,
                                              [](size_t i) { return std::to_string(i); });
  CHECK(r.mismatches == 1);
  CHECK(std::isnan(r.worst));
}

TEST_CASE("attention: a weight whose exp underflows is exactly 0, as an allowed -inf score's is") {
  // exp(-1000) and exp(-inf) are 0 in float32 (below ln(FLT_MIN) the true value is subnormal or 0);
  // Eigen's vectorised exp would give ~2.9e-39.
  std::vector<float> scores = {0.0f, -1000.0f, -std::numeric_limits<float>::infinity(), -90.0f,
                               0.0f};
  std::vector<float> probs(5);
  masked_softmax_row(scores.data(), probs.data(), 5, 0, Mask{});
  CHECK(probs[0] == 0.5f);
  CHECK(probs[1] == 0.0f);
  CHECK(probs[2] == 0.0f);
  CHECK(probs[3] == 0.0f);
  CHECK(probs[4] == 0.5f);
}

TEST_CASE("attention: NaN in v gives the same output at every block size under a causal mask") {
  // 0 · NaN = NaN in the full product PyTorch computes: row 0's zero weight on the NaN value row
  // still makes it NaN, whether or not its block could skip that key.
  const int n = 6;
  Matrix q = Matrix::Random(n, 4), k = Matrix::Random(n, 4), v = Matrix::Random(n, 3);
  v(n - 1, 0) = std::numeric_limits<float>::quiet_NaN();
  Mask causal;
  causal.causal = true;
  Matrix whole(n, 3), rows(n, 3);
  scaled_dot_product_attention(whole, q, k, v, causal, 0.5f, n, {});
  scaled_dot_product_attention(rows, q, k, v, causal, 0.5f, 1, {});
  for (int i = 0; i < n; ++i) {
    CHECK(std::isnan(whole(i, 0)));
    CHECK(std::isnan(rows(i, 0)));
    CHECK(rows.row(i).tail(2) == whole.row(i).tail(2));
  }
}

TEST_CASE("attention: a NaN or +inf score makes every allowed weight NaN, masked keys stay 0") {
  // PyTorch's softmax of a row holding NaN (or +inf, as inf − inf) is NaN throughout; outside the
  // allowed keys the weights are 0 by construction, as for any row.
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    for (int at : {0, 9, 16}) {  // a first lane, a middle one, the last allowed key (a vector tail)
      std::vector<float> scores(20, 0.5f), probs(20, -1.0f);
      scores[at] = bad;
      Mask pad;
      pad.n_pad_keys = 3;  // keys 17-19 are padding
      masked_softmax_row(scores.data(), probs.data(), 20, 0, pad);
      for (int j = 0; j < 17; ++j)
        CHECK_MESSAGE(std::isnan(probs[j]), "key " << j << ", bad at " << at);
      for (int j = 17; j < 20; ++j) CHECK(probs[j] == 0.0f);
    }
  }
}

TEST_CASE("attention: blocks are the same whatever masks and sizes ran before on the thread") {
  // The block buffers live between calls and skip rewriting the masked columns a previous causal
  // block left: each call must still hand over exactly its own -inf / 0 cells.
  Random rng(23);
  const int n = 29;
  const Matrix q = random_matrix(rng, n, 8), k = random_matrix(rng, n, 8),
               v = random_matrix(rng, n, 4);
  Mask causal;
  causal.causal = true;
  Mask causal_pad = causal;
  causal_pad.n_pad_keys = 4;
  Mask window;
  window.causal = true;
  window.window = 5;
  Mask none;
  for (const Mask* mask : {&causal, &causal, &none, &causal_pad, &window, &none, &causal}) {
    for (int block : {4, 13, 3}) {
      Matrix out, probs;
      naive_attention(q, k, v, *mask, 0.3f, probs);
      const auto c = run(out, q, k, v, *mask, 0.3f, block);
      check_close(c.probs, probs, 1e-6f, "probs " + mask->describe());
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          const bool allowed = mask->allowed(i, j, n);
          REQUIRE_MESSAGE((allowed ? std::isfinite(c.scores(i, j)) : c.scores(i, j) == -INFINITY),
                          mask->describe() << " block " << block << " (" << i << ", " << j << ")");
          if (!allowed) REQUIRE(c.probs(i, j) == 0.0f);
        }
      }
    }
  }
}

TEST_CASE("attention: d_k = 0 gives zero scores and uniform weights, no keys gives no weights") {
  const Matrix q(3, 0), k(4, 0), v = Matrix::Ones(4, 2);
  Matrix out;
  const auto c = run(out, q, k, v, Mask{}, 1.0f, 2);
  CHECK(c.scores.isZero(0.0f));
  CHECK((c.probs.array() == 0.25f).all());
  CHECK((out.array() == 1.0f).all());
  Matrix none_out;
  const auto none = run(none_out, Matrix::Ones(2, 3), Matrix(0, 3), Matrix(0, 2), Mask{}, 1.0f, 2);
  CHECK(none.blocks.size() == 1);
  CHECK(none_out.isZero(0.0f));
}
