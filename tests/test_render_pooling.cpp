// Tests of pooling long maps block by block: max / mean over allowed pairs, counts from the mask,
// coarsening for thumbnails — against hand-computed cells.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnviz/core/error.hpp"
#include "attnviz/render/pooled_map.hpp"

using namespace attnviz;

TEST_CASE("pooling: the grid has one factor for both axes and partial last cells") {
  const PoolGrid g = PoolGrid::for_map(5, 9, 4);  // pool = ceil(9 / 4) = 3
  CHECK(g.pool == 3);
  CHECK(g.cells_q == 2);
  CHECK(g.cells_k == 3);
  CHECK(PoolGrid::for_map(4, 4, 8).pool == 1);
}

TEST_CASE("pooling: max and mean over allowed pairs, from blocks in any row split") {
  Mask causal;
  causal.causal = true;
  const PoolGrid g = PoolGrid::for_map(4, 4, 2);  // 2 × 2 tokens per cell
  const CountMatrix counts = allowed_counts(causal, g);
  CHECK(counts(0, 0) == 3);  // (0,0) (1,0) (1,1)
  CHECK(counts(0, 1) == 0);
  CHECK(counts(1, 1) == 3);
  Matrix probs(4, 4);
  probs << 1, 0, 0, 0,      //
      0.25f, 0.75f, 0, 0,   //
      0.1f, 0.2f, 0.7f, 0,  //
      0.4f, 0.1f, 0.2f, 0.3f;
  PooledMap pooled(g);
  pooled.add(0, probs.topRows(3));  // blocks of 3 and 1 rows cross a cell boundary
  pooled.add(3, probs.bottomRows(1));
  const Matrix mx = pooled.values(PoolMode::max, counts);
  CHECK(mx(0, 0) == doctest::Approx(1.0f));
  CHECK(mx(1, 0) == doctest::Approx(0.4f));
  CHECK(mx(1, 1) == doctest::Approx(0.7f));
  const Matrix mean = pooled.values(PoolMode::mean, counts);
  CHECK(mean(0, 0) == doctest::Approx(2.0f / 3.0f));  // (1 + 0.25 + 0.75) / 3 allowed
  CHECK(mean(1, 0) == doctest::Approx(0.8f / 4.0f));
  CHECK(mean(1, 1) == doctest::Approx(1.2f / 3.0f));  // (0.7 + 0.2 + 0.3) / 3
  CHECK(mean(0, 1) == 0.0f);
  const PooledMap coarse = pooled.coarsened(2);
  const CountMatrix cc = coarsen_counts(counts, 2);
  CHECK(cc(0, 0) == 10);
  CHECK(coarse.values(PoolMode::max, cc)(0, 0) == doctest::Approx(1.0f));
  CHECK(coarse.values(PoolMode::mean, cc)(0, 0) == doctest::Approx(4.0f / 10.0f));
  CHECK_THROWS_AS(pooled.add(3, probs), Error);
  CHECK_THROWS_AS(parse_pool_mode("median"), Error);
}

namespace {
// The reference: the whole map gathered first, then each cell pooled by a plain loop over its
// pairs (max keeps a NaN; mean = double sum over the pairs the mask allows / their count).
Matrix pooled_whole(const Matrix& probs, const Mask& mask, int pool, PoolMode mode) {
  const auto cells = [pool](Eigen::Index n) { return (n + pool - 1) / pool; };
  Matrix out = Matrix::Zero(cells(probs.rows()), cells(probs.cols()));
  for (Eigen::Index ci = 0; ci < out.rows(); ++ci) {
    for (Eigen::Index cj = 0; cj < out.cols(); ++cj) {
      double sum = 0, top = 0;
      int n = 0;
      for (Eigen::Index i = ci * pool; i < std::min<Eigen::Index>(probs.rows(), (ci + 1) * pool);
           ++i) {
        for (Eigen::Index j = cj * pool; j < std::min<Eigen::Index>(probs.cols(), (cj + 1) * pool);
             ++j) {
          if (!mask.allowed(i, j, probs.cols())) continue;
          const double v = probs(i, j);
          sum += v, ++n;
          if (std::isnan(v) || std::isnan(top))
            top = std::nan("");
          else
            top = std::max(top, v);
        }
      }
      out(ci, cj) = static_cast<float>(mode == PoolMode::max ? top : (n > 0 ? sum / n : 0.0));
    }
  }
  return out;
}

void check_cells(const Matrix& got, const Matrix& want) {
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  for (Eigen::Index i = 0; i < got.rows(); ++i) {
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (std::isnan(want(i, j))) {
        CHECK(std::isnan(got(i, j)));
      } else {
        CHECK(got(i, j) == doctest::Approx(want(i, j)).epsilon(1e-5));
      }
    }
  }
}
}  // namespace

TEST_CASE(
    "pooling: streamed cells equal the gathered map pooled, under causal, window and padding "
    "masks") {
  Mask causal;
  causal.causal = true;
  Mask window = causal;
  window.window = 6;
  Mask padding;
  padding.n_pad_keys = 4;
  for (const Mask& mask : {causal, window, padding, Mask{}}) {
    const int n = 23;  // 23 tokens at ≤ 5 cells: pool 5, the last cell row and column hold 3
    const PoolGrid g = PoolGrid::for_map(n, n, 5);
    REQUIRE(g.pool == 5);
    Matrix probs(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {  // masked weights are 0, as the event promises
        probs(i, j) =
            mask.allowed(i, j, n) ? static_cast<float>((i * 7 + j * 3) % 11) / 10.0f : 0.0f;
      }
    }
    probs(12, 3) = std::nanf("");  // a NaN in an allowed cell of every mask here but the window's
    if (!mask.allowed(12, 3, n)) probs(12, 3) = 0.0f;
    PooledMap pooled(g);
    for (int r = 0; r < n; r += 7) {  // blocks of 7 rows: not a multiple of the pool
      const int rows = std::min(7, n - r);
      pooled.add(r, probs.middleRows(r, rows), &mask);
    }
    const CountMatrix counts = allowed_counts(mask, g);
    check_cells(pooled.values(PoolMode::max, counts), pooled_whole(probs, mask, 5, PoolMode::max));
    check_cells(pooled.values(PoolMode::mean, counts),
                pooled_whole(probs, mask, 5, PoolMode::mean));
    if (!mask.causal || mask.window > 0) continue;
    CHECK(std::isnan(pooled.values(PoolMode::max, counts)(2, 0)));  // the NaN kept by max
    CHECK(pooled.values(PoolMode::max, counts)(0, 4) == 0.0f);  // causal zeros above the diagonal
    // The thumbnail path: coarsened by 2 equals pooling the whole map by 10.
    const PooledMap coarse = pooled.coarsened(2);
    check_cells(coarse.values(PoolMode::mean, coarsen_counts(counts, 2)),
                pooled_whole(probs, mask, 10, PoolMode::mean));
    check_cells(coarse.values(PoolMode::max, coarsen_counts(counts, 2)),
                pooled_whole(probs, mask, 10, PoolMode::max));
  }
}

TEST_CASE("pooling: a window wider than int can add (--window 2147483647) hides no key") {
  Mask wide;
  wide.window = std::numeric_limits<int>::max();
  const PoolGrid g = PoolGrid::for_map(8, 8, 4);  // 2 × 2 tokens per cell
  const Matrix probs = Matrix::Constant(8, 8, 0.125f);
  PooledMap pooled(g);
  pooled.add(0, probs, &wide);
  const Matrix mean = pooled.values(PoolMode::mean, allowed_counts(wide, g));
  // Every pair is allowed: each cell is the mean of four 0.125s, by hand.
  for (Eigen::Index i = 0; i < mean.rows(); ++i)
    for (Eigen::Index j = 0; j < mean.cols(); ++j) REQUIRE(mean(i, j) == 0.125f);
}

TEST_CASE("mask: key_range is the run of keys allowed() allows, for every mask kind and size") {
  for (bool causal : {false, true}) {
    for (int pad : {0, 1, 3}) {
      for (int window : {0, 1, 2, 5, std::numeric_limits<int>::max()}) {
        Mask m;
        m.causal = causal, m.n_pad_keys = pad, m.window = window;
        for (int n_q : {1, 4, 9}) {
          for (int n_k : {1, 3, 8}) {
            for (int i = 0; i < n_q; ++i) {
              const auto [lo, hi] = m.key_range(i, n_k);
              int want_lo = -1, want_hi = -1;  // by allowed(), cell by cell
              for (int j = 0; j < n_k; ++j) {
                if (!m.allowed(i, j, n_k)) continue;
                if (want_lo < 0) want_lo = j;
                want_hi = j + 1;
              }
              if (want_lo < 0) want_lo = want_hi = 0;  // none: the empty range at 0
              CAPTURE(causal);
              CAPTURE(pad);
              CAPTURE(window);
              CAPTURE(n_k);
              CAPTURE(i);
              REQUIRE(lo == want_lo);
              REQUIRE(hi == want_hi);
            }
          }
        }
      }
    }
  }
}

TEST_CASE(
    "pooling: a map that keeps the max only gives the same max at every pool, and refuses mean") {
  Mask causal;
  causal.causal = true;
  for (int pool : {2, 3, 4, 5}) {
    for (const Mask& mask : {causal, Mask{}}) {
      const int n = 37;  // partial last cells for every pool here but none
      const PoolGrid g = PoolGrid::for_map(n, n, (n + pool - 1) / pool);
      REQUIRE(g.pool == pool);
      Matrix probs(n, n);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
          probs(i, j) =
              mask.allowed(i, j, n) ? static_cast<float>((i * 5 + j * 13) % 17) / 16.0f : 0.0f;
      }
      probs(20, 9) = std::nanf("");  // inside a whole run of keys for every pool
      PooledMap max_only(g, false);
      for (int r = 0; r < n; r += 6)
        max_only.add(r, probs.middleRows(r, std::min(6, n - r)), &mask);
      const CountMatrix counts = allowed_counts(mask, g);
      CAPTURE(pool);
      check_cells(max_only.values(PoolMode::max, counts),
                  pooled_whole(probs, mask, pool, PoolMode::max));
      CHECK(std::isnan(max_only.values(PoolMode::max, counts)(20 / pool, 9 / pool)));
      CHECK_THROWS_AS((void)max_only.values(PoolMode::mean, counts), Error);
      check_cells(max_only.coarsened(2).values(PoolMode::max, coarsen_counts(counts, 2)),
                  pooled_whole(probs, mask, 2 * pool, PoolMode::max));
    }
  }
}
