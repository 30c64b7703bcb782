// The norm a model's config names (LayerNorm or RMSNorm), wherever the layers put one.
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// layer_norm or rms_norm of x [n, D] with the model's eps, as c.norm says.
Matrix normalize(ConstMatrixRef x, const LayerNormWeights& w, const Config& c);

}  // namespace attnviz
