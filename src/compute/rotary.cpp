// RoPE: each pair (i, i + half) of a head's leading dims turns by its position times its frequency.
#include "attnviz/compute/rotary.hpp"

#include <cmath>

namespace attnviz {

RotaryTable rotary_table(int n, int rotary_dim, float theta) {
  const int half = rotary_dim / 2;
  RotaryTable t{Matrix(n, half), Matrix(n, half)};
  for (int i = 0; i < half; ++i) {
    // inv_freq = 1 / theta ** (arange(0, dim, 2).float() / dim)
    const float inv_freq = 1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(rotary_dim));
    for (int pos = 0; pos < n; ++pos) {
      const float angle = static_cast<float>(pos) * inv_freq;  // freqs = position_ids · inv_freq
      t.cos(pos, i) = static_cast<float>(std::cos(static_cast<double>(angle)));
      t.sin(pos, i) = static_cast<float>(std::sin(static_cast<double>(angle)));
    }
  }
  return t;
}

void apply_rotary(MatrixRef x, const RotaryTable& table) {
  const int half = table.rotary_dim() / 2;
  const Matrix x1 = x.leftCols(half);             // x[..., :half]
  const Matrix x2 = x.middleCols(half, half);     // x[..., half:rotary_dim]
  const auto cos = table.cos.topRows(x.rows()).array();
  const auto sin = table.sin.topRows(x.rows()).array();
  x.leftCols(half) = (x1.array() * cos - x2.array() * sin).matrix();          // x1·cos + (−x2)·sin
  x.middleCols(half, half) = (x2.array() * cos + x1.array() * sin).matrix();  // x2·cos + x1·sin
}

}  // namespace attnviz
