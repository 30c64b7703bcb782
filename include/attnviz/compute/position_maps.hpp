// A model's positional encoding as matrices, for `attnviz positions`: the encoding itself
// (positions × dimensions) and how alike two positions look to attention (positions × positions).
#pragma once

#include <string>

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

inline constexpr int k_max_position_maps = 8192;  // 8,192² doubles of similarity: 512 MB at most

struct PositionMaps {
  std::string kind;  // "sinusoidal", "learned", "rotary", "relative"
  Matrix
      encoding;  // [n, d]: PE rows (sinusoidal, learned) or cos(p·θ_i) (rotary, d = rotary_dim / 2)
  std::string encoding_what,
      dim_prefix;     // what a cell is ("PE(p, i)", "cos(p·θ_i)"), column label prefix
  Matrix similarity;  // [n, n]
  std::string similarity_what;
};

// Positions 0 … n−1. Sinusoidal and learned: similarity = cosine of the two rows (what their sum
// with the token embeddings shares). Rotary: similarity(m, n) = mean over the frequencies of cos((m
// − n)·θ_i), the dot product of one query and key of unit pairs rotated to positions m and n,
// divided by the pairs: it depends on m − n only. Relative (T5): encoding [n, heads] is the bias
// the encoder adds for a key d = 0 … n−1 positions before the query, per head; similarity the mean
// over heads of the bias of query i and key j. A model without positions is a usage Error.
PositionMaps position_maps(const Model& model, int n);

}  // namespace attnviz
