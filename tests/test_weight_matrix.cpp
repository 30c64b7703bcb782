// Weight matrices as stored: a view (either orientation, strided parts of a fused q/k/v) multiplies
// exactly as an owned nn.Linear weight does.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "../src/model/weight_buffers.hpp"
#include "attnviz/compute/linear.hpp"
#include "attnviz/core/random.hpp"
#include "attnviz/model/weight_matrix.hpp"
#include "check_close.hpp"

using namespace attnviz;

namespace {

// x [2, 4] and three nn.Linear weights [3, 4] (q, k, v) in small integers, so every product is
// exact.
const Matrix& hand_x() {
  static const Matrix x = (Matrix(2, 4) << 1, 2, 0, -1,  //
                           0, 1, 3, 2)
                              .finished();
  return x;
}
std::vector<Matrix> hand_qkv() {
  Matrix q(3, 4), k(3, 4), v(3, 4);
  q << 1, 0, 2, 1,  //
      0, 1, -1, 3,  //
      2, 2, 0, 0;
  k << -1, 0, 0, 0,  //
      0, 0, 0, 1,    //
      1, 1, 1, 1;
  v << 0, 0, 1, 0,  //
      3, 0, 0, -2,  //
      0, 1, 0, 1;
  return {q, k, v};
}
// x · Wᵀ + b worked by hand for the three weights above and biases (0.5, -1, 0), (0, 0, 0), (1, 1,
// 1).
std::vector<Matrix> hand_products() {
  Matrix q(2, 3), k(2, 3), v(2, 3);
  q << 0.5, -2, 6,  // 1+0+0-1 +.5, 0+2+0-3 -1, 2+4+0+0
      8.5, 3, 2;    // 0+0+6+2 +.5, 0+1-3+6 -1, 0+2+0+0
  k << -1, -1, 2,   // -1, -1, 1+2+0-1
      0, 2, 6;      // 0, 2, 0+1+3+2
  v << 1, 6, 2,     // 0 +1, 3+0+0+2 +1, 0+2+0-1 +1
      4, -3, 4;     // 3 +1, 0+0+0-4 +1, 0+1+0+2 +1
  return {q, k, v};
}
const RowVector k_bias[3] = {(RowVector(3) << 0.5f, -1, 0).finished(), RowVector::Zero(3),
                             RowVector::Ones(3)};

// The fused [9, 4] weight (q rows, then k, then v) in a buffer whose rows are `stride` floats
// apart.
std::vector<float> fused_out_in(const std::vector<Matrix>& w, int stride) {
  std::vector<float> buf(size_t(9 * stride), 99.0f);  // the padding must never be read
  for (int part = 0; part < 3; ++part) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) buf[size_t((part * 3 + r) * stride + c)] = w[size_t(part)](r, c);
    }
  }
  return buf;
}
// The same weights as GPT-2's Conv1D c_attn stores them: [4, 9], input rows, q|k|v columns.
std::vector<float> fused_in_out(const std::vector<Matrix>& w, int stride) {
  std::vector<float> buf(size_t(4 * stride), 99.0f);
  for (int part = 0; part < 3; ++part) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) buf[size_t(c * stride + part * 3 + r)] = w[size_t(part)](r, c);
    }
  }
  return buf;
}

}  // namespace

TEST_CASE("weight matrix: an owned nn.Linear weight gives the hand-worked products") {
  const auto w = hand_qkv();
  const auto y = hand_products();
  for (int part = 0; part < 3; ++part) {
    const Linear owned{w[size_t(part)],
                       k_bias[part]};  // implicit from a Matrix, as nn.Linear(w, b)
    CHECK(owned.weight.out_features() == 3);
    CHECK(owned.weight.in_features() == 4);
    CHECK(linear(hand_x(), owned) == y[size_t(part)]);
  }
}

TEST_CASE(
    "weight matrix: views of a fused q/k/v, [out, in] and Conv1D [in, out], strided, split without "
    "copying") {
  const auto w = hand_qkv();
  const auto y = hand_products();
  for (const int pad : {0, 3}) {  // rows exactly as wide as the matrix, or further apart
    CAPTURE(pad);
    const std::vector<float> rows = fused_out_in(w, 4 + pad), cols = fused_in_out(w, 9 + pad);
    const WeightMatrix fused_rows(rows.data(), 9, 4, 4 + pad, WeightLayout::out_in, nullptr);
    const WeightMatrix fused_cols(cols.data(), 4, 9, 9 + pad, WeightLayout::in_out, nullptr);
    for (const WeightMatrix& fused : {fused_rows, fused_cols}) {
      CHECK(fused.out_features() == 9);
      CHECK(fused.in_features() == 4);
      CHECK(fused(4, 3) == w[1](1, 3));  // k's row 1, as nn.Linear indexes it
      for (int part = 0; part < 3; ++part) {
        CAPTURE(part);
        const WeightMatrix view = fused.out_rows(3 * part, 3);
        CHECK(view.matrix() == w[size_t(part)]);
        CHECK(view.stored().data() != nullptr);
        CHECK(linear(hand_x(), Linear{view, k_bias[part]}) == y[size_t(part)]);
      }
    }
    // The views point into the buffers: no copy was made.
    CHECK(fused_rows.out_rows(3, 3).stored().data() == rows.data() + 3 * (4 + pad));
    CHECK(fused_cols.out_rows(3, 3).stored().data() == cols.data() + 3);
  }
}

TEST_CASE(
    "weight matrix: products large enough for BLAS read strided views of either orientation") {
  // 70 outputs of 3 fused parts, 65 inputs, 33 positions: odd sizes, past Eigen's small-product
  // path.
  const Eigen::Index out = 70, in = 65, n = 33, stride_pad = 5;
  Random rng(11);
  Matrix w(3 * out, in), x(n, in);
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = rng.normal();
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
  Matrix by_rows = Matrix::Constant(3 * out, in + stride_pad, 99.0f);
  by_rows.leftCols(in) = w;
  Matrix by_cols = Matrix::Constant(in, 3 * out + stride_pad, 99.0f);
  by_cols.leftCols(3 * out) = w.transpose();
  const WeightMatrix fused_rows(by_rows.data(), 3 * out, in, in + stride_pad, WeightLayout::out_in,
                                nullptr);
  const WeightMatrix fused_cols(by_cols.data(), in, 3 * out, 3 * out + stride_pad,
                                WeightLayout::in_out, nullptr);
  for (int part = 0; part < 3; ++part) {
    CAPTURE(part);
    // The reference: a double-precision triple loop over nn.Linear's weight.
    Matrix expected(n, out);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index o = 0; o < out; ++o) {
        double sum = 0;
        for (Eigen::Index k = 0; k < in; ++k) sum += double(x(i, k)) * double(w(part * out + o, k));
        expected(i, o) = float(sum);
      }
    }
    const Matrix owned = linear(x, Linear{w.middleRows(part * out, out), {}});
    test::check_close(owned, expected, 1e-4f, "owned");
    CHECK(linear(x, Linear{fused_rows.out_rows(part * out, out), {}}) ==
          owned);  // the same sgemm, another lda
    test::check_close(linear(x, Linear{fused_cols.out_rows(part * out, out), {}}), expected, 1e-4f,
                      "Conv1D view");
  }
}

TEST_CASE(
    "weight matrix: a converted layer's buffer is reused by the next layer's tensor of that size") {
  const size_t n =
      4093;  // prime: no other test's weight has this many elements, the pool is shared
  float* given_back[2] = {};
  {
    const std::shared_ptr<float> a = detail::weight_buffer(n, true),
                                 b = detail::weight_buffer(n, true);
    CHECK(a.get() != b.get());  // a is still held: b is another buffer
    given_back[0] = a.get();
    given_back[1] = b.get();
  }
  const std::shared_ptr<float> again = detail::weight_buffer(n, true);
  CHECK((again.get() == given_back[0] || again.get() == given_back[1]));
  const std::shared_ptr<float> other =
      detail::weight_buffer(n + 6, true);  // no free buffer of this size
  CHECK(other.get() != given_back[0]);
  CHECK(other.get() != given_back[1]);
  other.get()[n + 5] = 1.0f;  // every float is there (ASan would catch a short buffer)
}
