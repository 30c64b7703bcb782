// Tests of pooling long maps block by block: max / mean over allowed pairs, counts from the mask,
// coarsening for thumbnails — against hand-computed cells.
#include <doctest/doctest.h>

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
  probs << 1, 0, 0, 0,  //
      0.25f, 0.75f, 0, 0,  //
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
