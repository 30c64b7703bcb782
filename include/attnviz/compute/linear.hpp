// nn.Linear: y = x Wᵀ + b (and Conv1D: y = x W + b).
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// x [n, in] → [n, out]; the product goes to BLAS sgemm for large shapes.
Matrix linear(ConstMatrixRef x, const Linear& layer);

}  // namespace attnviz
