// Dense float32 matrices, row-major like PyTorch tensors, so a [N, d] tensor maps onto a Matrix as is.
#pragma once

#include <Eigen/Core>

#include <algorithm>

namespace attnviz {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// The largest finite value of m (NaN and ±inf skipped), or `floor` when it is larger or none is
// finite: the top of a colour scale that a NaN must not poison.
inline float finite_max(ConstMatrixRef m, float floor) {
  if (m.size() == 0) return floor;
  const auto a = m.array();
  return std::max(floor, a.isFinite().select(a, floor).maxCoeff());
}

}  // namespace attnviz
