// RMSNorm over each row: re-scaling only, no re-centring.
#include "attnviz/compute/rms_norm.hpp"

#include <cmath>

namespace attnviz {

Matrix rms_norm(ConstMatrixRef x, const LayerNormWeights& w, float eps) {
  Matrix y(x.rows(), x.cols());
  const float d = static_cast<float>(x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float mean_square = x.row(i).squaredNorm() / d;  // mean(x²)
    y.row(i) = x.row(i) * (1.0f / std::sqrt(mean_square + eps));
  }
  y.array().rowwise() *= w.weight.array();
  if (w.bias.size() > 0) y.rowwise() += w.bias;
  return y;
}

}  // namespace attnviz
