// nn.Linear forward: y = x Wᵀ + b.
#include "attnviz/compute/linear.hpp"

namespace attnviz {

Matrix linear(ConstMatrixRef x, const Linear& layer) {
  Matrix y(x.rows(), layer.weight.rows());
  y.noalias() = x * layer.weight.transpose();
  if (layer.bias.size() > 0) y.rowwise() += layer.bias;
  return y;
}

}  // namespace attnviz
