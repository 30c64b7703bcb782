// RoPE: each pair (i, i + half) of a head's leading dims turns by its position times its frequency.
#include "attnviz/compute/rotary.hpp"

#include <cmath>

namespace attnviz {

namespace {

// Llama 3.1's frequencies (HF's _compute_llama3_parameters, in float32 as it computes them):
// wavelengths longer than original / low_freq_factor are stretched by `factor`, shorter than
// original / high_freq_factor kept, and those between blended by how many wavelengths fit the
// original context.
float llama3_frequency(float inv_freq, const RopeScaling& s) {
  const float original = static_cast<float>(s.original_max_positions);
  const float low_freq_wavelen = original / s.low_freq_factor;
  const float high_freq_wavelen = original / s.high_freq_factor;
  const float wavelen = static_cast<float>(2 * M_PI) / inv_freq;
  if (wavelen > low_freq_wavelen) return inv_freq / s.factor;
  if (wavelen < high_freq_wavelen) return inv_freq;
  const float smooth =
      (original / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return (1 - smooth) * inv_freq / s.factor + smooth * inv_freq;
}

float scaled_frequency(float inv_freq, int i, const RopeScaling& s) {
  switch (s.kind) {
    case RopeScaling::Kind::none:
      return inv_freq;
    case RopeScaling::Kind::linear:
      return inv_freq / s.factor;  // positions / factor
    case RopeScaling::Kind::llama3:
      return llama3_frequency(inv_freq, s);
    // ggml_rope_ext: theta = pos · theta_base / freq_factors[i] (the load checked one per pair)
    case RopeScaling::Kind::freq_factors:
      return inv_freq / s.freq_factors.at(size_t(i));
  }
  return inv_freq;
}

}  // namespace

RotaryTable rotary_table(int n, int rotary_dim, float theta, const RopeScaling& scaling) {
  const int half = rotary_dim / 2;
  RotaryTable t{Matrix(n, half), Matrix(n, half)};
  for (int i = 0; i < half; ++i) {
    // inv_freq = 1 / theta ** (arange(0, dim, 2).float() / dim), then the config's rope scaling
    const float inv_freq = scaled_frequency(
        1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(rotary_dim)), i,
        scaling);
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
  const Matrix x1 = x.leftCols(half);          // x[..., :half]
  const Matrix x2 = x.middleCols(half, half);  // x[..., half:rotary_dim]
  const auto cos = table.cos.topRows(x.rows()).array();
  const auto sin = table.sin.topRows(x.rows()).array();
  x.leftCols(half) = (x1.array() * cos - x2.array() * sin).matrix();  // x1·cos + (−x2)·sin
  x.middleCols(half, half) = (x2.array() * cos + x1.array() * sin).matrix();  // x2·cos + x1·sin
}

}  // namespace attnviz
