// nn.Linear forward: y = x Wᵀ + b; Conv1D's: y = x W + b, the weight read as it is stored.
#include "attnviz/compute/linear.hpp"

namespace attnviz {

Matrix linear(ConstMatrixRef x, const Linear& layer) {
  const WeightMatrix& w = layer.weight;
  Matrix y(x.rows(), w.out_features());
  // Either way one sgemm reads the stored (possibly mapped, strided) weight with its lda.
  if (w.layout() == WeightLayout::out_in) {
    y.noalias() = x * w.stored().transpose();
  } else {
    y.noalias() = x * w.stored();
  }
  if (layer.bias.size() > 0) y.rowwise() += layer.bias;
  return y;
}

}  // namespace attnviz
