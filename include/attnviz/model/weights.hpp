// Weights: the model's tensors bound to their roles (read-only after loading).
#pragma once

#include <optional>
#include <vector>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// nn.Linear: y = x Wᵀ + b.
struct Linear {
  Matrix weight;   // [out_features, in_features]
  RowVector bias;  // [out_features], or empty when bias=False
  int in_features() const { return static_cast<int>(weight.cols()); }
  int out_features() const { return static_cast<int>(weight.rows()); }
};

// One multi-head attention module: q, k, v projections and an optional output projection.
struct AttentionWeights {
  Linear q;                  // [d_qk, d_model]
  Linear k;                  // [d_qk, d_model]
  Linear v;                  // [d_v, d_model]
  std::optional<Linear> out; // [d_out, d_v] (absent in seed 000's SelfAttention)
};

struct Weights {
  std::optional<Matrix> token_embedding;  // [vocab_size, d_model]
  AttentionWeights attention;
};

}  // namespace attnviz
