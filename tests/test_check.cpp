// Mask and numerics checks: hand-made blocks with leaks, bad sums and NaN are caught (the real
// compute never produces them); a fully masked row fails `attnviz check` and `run --check` with
// exit 3.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attnviz/analysis/check.hpp"
#include "attnviz/compute/attention.hpp"
#include "emit_blocks.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

MapInfo make_info(int n_q, int n_k, const Mask& mask, int head = 2) {
  MapInfo info;
  info.id.head = head;
  info.n_heads = head + 1;
  info.n_query = n_q;
  info.n_key = n_k;
  info.d_head = 4;
  info.scale = 0.5f;
  info.mask = std::make_shared<const Mask>(mask);
  return info;
}

// Emits probabilities exactly as given (scores: the compute's softmax inputs, -inf where masked).
std::vector<Finding> check_map(const Mask& mask, const Matrix& scores, const Matrix& probs,
                               int block_rows = 2) {
  const MapInfo info = make_info(int(probs.rows()), int(probs.cols()), mask);
  CheckCollector c;
  attnviz::test::emit_blocks(c, info, scores, probs, block_rows);
  return c.findings();
}

// The compute's own scores and probabilities for raw scores s under mask.
std::pair<Matrix, Matrix> softmax_map(Matrix s, const Mask& mask) {
  Matrix p(s.rows(), s.cols());
  for (int i = 0; i < s.rows(); ++i)
    masked_softmax_row(s.row(i).data(), p.row(i).data(), int(s.cols()), i, mask);
  return {s, p};
}

Mask causal_mask() {
  Mask m;
  m.causal = true;
  return m;
}

}  // namespace

TEST_CASE("check: the compute's own causal map passes") {
  const Mask mask = causal_mask();
  const auto [s, p] = softmax_map(Matrix::Random(5, 5), mask);
  CheckCollector c;
  const MapInfo info = make_info(5, 5, mask);
  c.begin_map(info);
  c.on_block(AttentionBlock(info, 0, 5, s, p));
  c.end_map(info);
  CHECK(c.findings().empty());
  CHECK(c.summary() == "check: 1 map, no problems");
}

TEST_CASE("check: a row whose keys are all masked is reported with layer, site, head and rows") {
  Mask mask;
  MaskMatrix m = MaskMatrix::Ones(4, 3);
  m.row(1).setZero();
  m.row(2).setZero();
  mask.matrix = m;
  const auto [s, p] = softmax_map(Matrix::Zero(4, 3), mask);  // rows 1, 2 become zero rows
  const auto f = check_map(mask, s, p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].problem == Problem::fully_masked);
  CHECK(f[0].rows == std::vector<int>{1, 2});
  CHECK(f[0].message() ==
        "layer 0 · self · head 2: every key is masked in query rows 1-2 (2 of 4): no attention is "
        "defined (a zero row)");
}

TEST_CASE("check: weight on a masked key is a leak, even when the row sums to 1") {
  const Mask mask = causal_mask();
  auto [s, p] = softmax_map(Matrix::Zero(3, 3), mask);
  p.row(1) << 0.4f, 0.4f, 0.2f;  // key 2 is in query 1's future
  const auto f = check_map(mask, s, p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].problem == Problem::masked_leak);
  CHECK(f[0].rows == std::vector<int>{1});
  CHECK(f[0].worst == doctest::Approx(0.2));
  CHECK(
      contains(f[0].message(), "head 2: weight on masked keys in query row 1 (1 of 3): up to 0.2"));
}

TEST_CASE(
    "check: window and padding masks: weight on any key outside a row's window or on padding "
    "leaks") {
  Mask mask;
  mask.window = 2;
  mask.n_pad_keys = 1;  // key 3
  const Matrix s = Matrix::Zero(4, 4);
  const Matrix p = Matrix::Constant(4, 4, 0.25f);  // uniform: every masked key holds 0.25
  const auto f = check_map(mask, s, p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].problem == Problem::masked_leak);
  // By hand: row 0 may see keys {0, 1}, row 1 {0, 1, 2}, row 2 {1, 2}, row 3 {2}: leaks 0.5, 0.25,
  // 0.5, 0.75.
  CHECK(f[0].rows == std::vector<int>{0, 1, 2, 3});
  CHECK(f[0].worst == doctest::Approx(0.75));
}

TEST_CASE(
    "check: the annotated transformer's -1e9 fill makes fully masked rows uniform: masked and "
    "leaking") {
  Mask mask;
  mask.matrix = MaskMatrix::Zero(2, 2);
  Matrix s = Matrix::Constant(2, 2, -1e9f);
  Matrix p = Matrix::Constant(2, 2, 0.5f);  // softmax of equal -1e9 logits
  const auto f = check_map(mask, s, p);
  REQUIRE(f.size() == 2);  // a finite -1e9 fill is not itself a problem
  CHECK(f[0].problem == Problem::fully_masked);
  CHECK(f[1].problem == Problem::masked_leak);
  CHECK(f[1].worst == doctest::Approx(1.0));
}

TEST_CASE("check: a row off 1 by more than 1e-5 is reported, within 1e-5 it is not") {
  const Mask mask;
  auto [s, p] = softmax_map(Matrix::Zero(3, 2), mask);
  p.row(0) << 0.5f, 0.49f;
  p.row(2) << 0.5f, 0.500004f;
  const auto f = check_map(mask, s, p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].problem == Problem::bad_sum);
  CHECK(f[0].rows == std::vector<int>{0});
  CHECK(f[0].worst == doctest::Approx(0.01).epsilon(1e-4));
}

TEST_CASE("check: NaN or Inf in weights or allowed scores is reported per row") {
  const Mask mask;
  auto [s, p] = softmax_map(Matrix::Zero(4, 2), mask);
  p(1, 0) = std::numeric_limits<float>::quiet_NaN();
  s(3, 1) = std::numeric_limits<float>::infinity();
  const auto f = check_map(mask, s, p, 3);
  REQUIRE(f.size() == 1);
  CHECK(f[0].problem == Problem::non_finite);
  CHECK(f[0].rows == std::vector<int>{1, 3});
  CHECK(contains(f[0].message(), "NaN or Inf in query rows 1, 3 (2 of 4): 2 cells"));
}

TEST_CASE(
    "check cli: the annotated transformer's all-zero mask fails `check` with exit 3, naming every "
    "head") {
  const auto r =
      run_attnviz("check -m samples/mha -t - --mask samples/mask_all_zeros.txt", "a b c d");
  CHECK(r.exit_code == 3);
  for (int h = 0; h < 4; ++h) {
    CHECK(contains(r.out, "layer 0 · self · head " + std::to_string(h) +
                              ": every key is masked in query rows 0-3 (4 of 4)"));
  }
  CHECK(contains(r.err, "attnviz: check: 4 problems in 4 of 4 maps"));
}

TEST_CASE("check cli: a clean causal run passes with exit 0, --head narrows the maps checked") {
  auto r = run_attnviz("check -m samples/mha -t samples/english.txt --causal");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "check: 4 maps, no problems\n");
  r = run_attnviz("check -m samples/mha -t samples/english.txt --head 1");
  CHECK(r.out == "check: 1 map, no problems\n");
  r = run_attnviz("check -m samples/mha -t samples/english.txt --head 9");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "attnviz: error: --head 9: the model has 4 heads (0–3)\n"));
}

TEST_CASE("check cli: `run --check` prints the run, then the problems on stderr, and exits 3") {
  auto r = run_attnviz(
      "run -m samples/mha -t - --mask samples/mask_all_zeros.txt --no-heatmap --check", "a b c d");
  CHECK(r.exit_code == 3);
  CHECK(contains(r.out, "weights"));  // the run's table is still printed
  CHECK(contains(r.err,
                 "attnviz: check: layer 0 · self · head 3: every key is masked in query rows 0-3"));
  CHECK(contains(r.err, "attnviz: check: 4 problems in 4 of 4 maps"));
  r = run_attnviz("run -m samples/mha -t samples/english.txt --causal --no-heatmap --check");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
}
