// The position-wise feed-forward network: FFN(x) = act(x W₁ᵀ + b₁) W₂ᵀ + b₂, or gated (GLU
// variants, Shazeer 2020): FFN(x) = (act(x W_gᵀ) ⊙ x W₁ᵀ) W₂ᵀ — SwiGLU with SiLU, as Llama's
// down(silu(gate(x)) * up(x)).
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// ReLU: max(0, x); GELU(erf): x·Φ(x) = 0.5x(1 + erf(x/√2)); GELU(tanh): 0.5x(1 + tanh(√(2/π)(x +
// 0.044715x³))); SiLU (swish): x·σ(x).
void activate(MatrixRef x, Activation activation);

// x [n, D] → [n, D]; gated when w has a gate.
Matrix feed_forward(ConstMatrixRef x, const FeedForwardWeights& w, Activation activation);

}  // namespace attnviz
