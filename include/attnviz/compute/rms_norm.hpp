// RMSNorm (Zhang & Sennrich 2019): y = x / sqrt(mean(x²) + eps) · g over the last dimension.
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// x [n, D] → [n, D], in float32 as Hugging Face's LlamaRMSNorm computes it:
//   x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
// No mean is subtracted. The paper's optional bias is added when w has one.
Matrix rms_norm(ConstMatrixRef x, const LayerNormWeights& w, float eps);

}  // namespace attnviz
