// One transformer layer: self-attention, optional cross-attention, FFN, each with residual and
// norm.
#pragma once

#include "attnviz/compute/multi_head.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// post-norm (Vaswani et al., BERT):  x = LN(x + Sublayer(x))
// pre-norm (GPT-2, Llama, norm_first=True):  x = x + Sublayer(LN(x))
// sandwich (Gemma 2):  x = x + LN'(Sublayer(LN(x)));  output norm only (OLMo 2): x +
// LN'(Sublayer(x)) parallel (GPT-NeoX, c.parallel_residual):  x = x + SelfAttn(LN(x)) + FFN(LN₂(x))
// LN is the config's norm: LayerNorm or RMSNorm.
// Sublayers in order: SelfAttn(x) [, CrossAttn(x, memory)] [, FFN(x)].
// cross and memory are used only when the layer has cross-attention weights.
Matrix transformer_layer(ConstMatrixRef x, const LayerWeights& w, const Config& c, int layer,
                         const AttentionSetup& self, const Matrix* memory,
                         const AttentionSetup* cross);

}  // namespace attnviz
