// Rotary position embedding (Su et al. 2021, RoFormer) in Hugging Face's rotate-half form.
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"

namespace attnviz {

// cos and sin of every (position, frequency): angle(pos, i) = pos · theta^(−2i / rotary_dim) for
// i < rotary_dim / 2, in float32 as HF's LlamaRotaryEmbedding computes inv_freq and freqs.
struct RotaryTable {
  Matrix cos;  // [n, rotary_dim / 2]
  Matrix sin;  // [n, rotary_dim / 2]
  int rotary_dim() const { return static_cast<int>(cos.cols()) * 2; }
};

// Positions 0 … n−1 (the token index); frequencies stretched by the config's rope scaling.
RotaryTable rotary_table(int n, int rotary_dim, float theta, const RopeScaling& scaling = {});

// One head x [n, d_k], in place: its first rotary_dim dims become x·cos + rotate_half(x)·sin with
// rotate_half(x) = cat(−x[half:], x[:half]) and cos/sin = cat(freqs, freqs).cos()/.sin(), so dim i
// turns with dim i + rotary_dim/2 by angle(pos, i); the other d_k − rotary_dim dims pass through
// (partial rotary). Since each pair turns by pos·freq, q_m · k_n depends on m − n only.
void apply_rotary(MatrixRef x, const RotaryTable& table);

}  // namespace attnviz
