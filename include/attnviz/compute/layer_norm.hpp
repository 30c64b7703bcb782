// LayerNorm (Ba et al. 2016): y = (x − mean) / sqrt(var + eps) · γ + β over the last dimension.
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// x [n, D] → [n, D]; var is the biased variance, as torch.nn.LayerNorm computes it.
Matrix layer_norm(ConstMatrixRef x, const LayerNormWeights& w, float eps);

}  // namespace attnviz
