// Dense float32 matrices, row-major like PyTorch tensors, so a [N, d] tensor maps onto a Matrix as
// is.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "attnviz/core/vector_math.hpp"

namespace attnviz {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// The largest finite value of m (NaN and ±inf skipped), or `floor` when it is larger or none is
// finite: the top of a colour scale that a NaN must not poison.
// Row by row through vector_math's max_finite (tested on the bits: Eigen's isFinite computes
// x − x, which stalls on the subnormal weights of long maps).
inline float finite_max(ConstMatrixRef m, float floor) {
  float top = floor;
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    top = max_finite(m.row(i).data(), static_cast<std::size_t>(m.cols()), top);
  return top;
}

}  // namespace attnviz
