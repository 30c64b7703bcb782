// Dense float32 matrices, row-major like PyTorch tensors, so a [N, d] tensor maps onto a Matrix as is.
#pragma once

#include <Eigen/Core>

namespace attnviz {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

}  // namespace attnviz
