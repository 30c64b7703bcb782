// The weight matrix of a projection as it is stored: owned floats (models built in code, converted
// dtypes) or a read-only view of a mapped F32 tensor, in nn.Linear's [out, in] or Conv1D's [in,
// out].
#pragma once

#include <memory>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// nn.Linear keeps weight [out, in]; GPT-2's Conv1D keeps [in, out]. A product reads either one
// through its transpose flag, so a Conv1D weight is never transposed in memory.
enum class WeightLayout { out_in, in_out };

class WeightMatrix {
 public:
  // The stored rows × cols floats, rows `stride` floats apart (a part of a fused q/k/v is strided);
  // Eigen hands the stride to BLAS as its leading dimension.
  using Stored = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

  WeightMatrix() = default;
  // An owned [out, in] matrix; implicit, so Linear{w, b} reads as nn.Linear(w, b).
  WeightMatrix(Matrix w) : WeightMatrix(std::move(w), WeightLayout::out_in) {}  // NOLINT
  template <typename Derived>
  WeightMatrix(const Eigen::MatrixBase<Derived>& w) : WeightMatrix(Matrix(w)) {}  // NOLINT
  // An owned matrix stored as `layout` says.
  WeightMatrix(Matrix stored, WeightLayout layout);
  // A view of `rows` × `cols` floats at `data`, rows `stride` floats apart, stored as `layout`;
  // `owner` keeps them alive (a file mapping) for as long as any copy of the view.
  WeightMatrix(const float* data, Eigen::Index rows, Eigen::Index cols, Eigen::Index stride,
               WeightLayout layout, std::shared_ptr<const void> owner);

  Eigen::Index out_features() const { return layout_ == WeightLayout::out_in ? rows_ : cols_; }
  Eigen::Index in_features() const { return layout_ == WeightLayout::out_in ? cols_ : rows_; }
  WeightLayout layout() const { return layout_; }
  Stored stored() const { return Stored(data_, rows_, cols_, Eigen::OuterStride<>(stride_)); }
  // Element [out, in] of nn.Linear's weight, whatever the storage.
  float operator()(Eigen::Index out, Eigen::Index in) const {
    return layout_ == WeightLayout::out_in ? data_[out * stride_ + in] : data_[in * stride_ + out];
  }
  // nn.Linear's weight [out, in] as a new matrix (for tests and comparisons, not for products).
  Matrix matrix() const;
  // Outputs [from, from + n) — the q, k or v of a fused projection — sharing this storage.
  WeightMatrix out_rows(Eigen::Index from, Eigen::Index n) const;

 private:
  const float* data_ = nullptr;
  Eigen::Index rows_ = 0, cols_ = 0, stride_ = 0;
  WeightLayout layout_ = WeightLayout::out_in;
  std::shared_ptr<const void> owner_;
};

}  // namespace attnviz
