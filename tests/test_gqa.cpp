// Grouped-query attention (Ainslie et al. 2023): fewer key/value heads, each read by a group of
// query heads, equals equal-head attention with every k/v head repeated (HF's repeat_kv).
#include <doctest/doctest.h>

#include "attnviz/compute/multi_head.hpp"
#include "attnviz/core/random.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

namespace {

struct HeadProbs : AttentionSink {
  std::vector<Matrix> heads;
  void begin_map(const MapInfo& info) override { heads.emplace_back(info.n_query, info.n_key); }
  void on_block(const AttentionBlock& b) override {
    heads.back().middleRows(b.row_begin, b.row_end - b.row_begin) = b.probs;
  }
};

Matrix random_matrix(Random& rng, int rows, int cols) {
  Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) m(i, j) = rng.normal() * 0.5f;
  }
  return m;
}

// The rows of head g (d rows each) repeated `times` times in a row: [h0, h0, h1, h1] for times 2.
Matrix repeat_heads(const Matrix& w, int d, int times) {
  const int n = static_cast<int>(w.rows()) / d;
  Matrix out(w.rows() * times, w.cols());
  for (int g = 0; g < n; ++g) {
    for (int r = 0; r < times; ++r) out.middleRows((g * times + r) * d, d) = w.middleRows(g * d, d);
  }
  return out;
}

RowVector repeat_heads(const RowVector& b, int d, int times) {
  const int n = static_cast<int>(b.size()) / d;
  RowVector out(b.size() * times);
  for (int g = 0; g < n; ++g) {
    for (int r = 0; r < times; ++r) out.segment((g * times + r) * d, d) = b.segment(g * d, d);
  }
  return out;
}

RowVector random_row(Random& rng, int n) {
  return random_matrix(rng, 1, n).row(0);
}

// Maps and output of `w` over x (causal), 4 query heads.
std::pair<std::vector<Matrix>, Matrix> run(const AttentionWeights& w, const Matrix& x) {
  HeadProbs sink;
  AttentionSetup setup;
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  setup.mask = mask;
  setup.block_rows = 2;
  setup.sink = &sink;
  const Matrix out = multi_head_attention(x, x, w, 4, setup, 0);
  return {sink.heads, out};
}

}  // namespace

TEST_CASE(
    "gqa: 4 query heads over 2 (and 1) key/value heads equal 4 equal heads with k/v repeated") {
  const int d_model = 12, d_k = 3, d_v = 2;
  for (int n_kv : {2, 1}) {
    CAPTURE(n_kv);
    Random rng(7 + n_kv);
    AttentionWeights gqa;
    gqa.q = Linear{random_matrix(rng, 4 * d_k, d_model), random_row(rng, 4 * d_k)};
    gqa.k = Linear{random_matrix(rng, n_kv * d_k, d_model), random_row(rng, n_kv * d_k)};
    gqa.v = Linear{random_matrix(rng, n_kv * d_v, d_model), random_row(rng, n_kv * d_v)};
    gqa.out = Linear{random_matrix(rng, d_model, 4 * d_v), {}};
    AttentionWeights equal = gqa;
    const int group = 4 / n_kv;  // query heads per key/value head
    equal.k = Linear{repeat_heads(gqa.k.weight.matrix(), d_k, group),
                     repeat_heads(gqa.k.bias, d_k, group)};
    equal.v = Linear{repeat_heads(gqa.v.weight.matrix(), d_v, group),
                     repeat_heads(gqa.v.bias, d_v, group)};
    const Matrix x = random_matrix(rng, 5, d_model);

    const auto [gqa_maps, gqa_out] = run(gqa, x);
    const auto [equal_maps, equal_out] = run(equal, x);
    REQUIRE(gqa_maps.size() == 4);
    for (int h = 0; h < 4; ++h)
      check_close(gqa_maps[h], equal_maps[h], 1e-6f, "head " + std::to_string(h));
    check_close(gqa_out, equal_out, 2e-6f,
                "output");  // k/v products of other shapes round differently in BLAS
    // Query heads of one group read the same keys, so they differ only through their queries.
    CHECK_FALSE(gqa_maps[0].isApprox(gqa_maps[1]));
  }
}

TEST_CASE("gqa: key/value widths that no head count divides are refused, not read out of bounds") {
  Random rng(1);
  AttentionWeights w;
  w.q = Linear{random_matrix(rng, 12, 6), {}};
  w.k = Linear{random_matrix(rng, 9, 6), {}};  // 3 heads of d_k 3, not dividing 4
  w.v = Linear{random_matrix(rng, 9, 6), {}};
  CHECK_THROWS(multi_head_attention(random_matrix(rng, 2, 6), random_matrix(rng, 2, 6), w, 4,
                                    AttentionSetup{}, 0));
}
