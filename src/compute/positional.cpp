// Sinusoidal positions, computed in double as the annotated transformer's div_term = exp(2i ·
// −ln(base)/d).
#include "attnviz/compute/positional.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

// fairseq's SinusoidalPositionalEmbedding.get_embedding (M2M100, NLLB), in float32 as it computes:
// ω_i = exp(i · −ln(base)/(h − 1)), h = ⌊d/2⌋; [sin(p·ω), cos(p·ω)], then a zero column if d is
// odd.
Matrix fairseq_encoding(int n, int d, float base, int first) {
  const int h = d / 2;
  if (h < 2) {
    throw Error(
        fmt::format("fairseq's sinusoid divides by ⌊d/2⌋ − 1: d_model {} is too narrow", d));
  }
  const auto step = static_cast<float>(std::log(static_cast<double>(base)) / (h - 1));
  Matrix pe = Matrix::Zero(n, d);
  for (int i = 0; i < h; ++i) {
    const float omega = std::exp(static_cast<float>(i) * -step);
    for (int r = 0; r < n; ++r) {
      const float angle = static_cast<float>(int64_t{first} + r) * omega;
      pe(r, i) = std::sin(angle);
      pe(r, h + i) = std::cos(angle);
    }
  }
  return pe;
}

}  // namespace

Matrix sinusoidal_encoding(int n, int d, float base, SinusoidLayout layout, int first) {
  if (layout == SinusoidLayout::fairseq) return fairseq_encoding(n, d, base, first);
  Matrix pe(n, d);
  const int half = (d + 1) / 2;  // the sines' columns (Marian's sentinel)
  for (int row = 0; row < n; ++row) {
    const auto pos = static_cast<double>(int64_t{first} + row);
    for (int i = 0; 2 * i < d; ++i) {
      const double angle = pos * std::exp(2.0 * i * -std::log(static_cast<double>(base)) / d);
      const bool has_cos = 2 * i + 1 < d;
      if (layout == SinusoidLayout::halves) {
        pe(row, i) = static_cast<float>(std::sin(angle));
        if (has_cos) pe(row, half + i) = static_cast<float>(std::cos(angle));
      } else {
        pe(row, 2 * i) = static_cast<float>(std::sin(angle));
        if (has_cos) pe(row, 2 * i + 1) = static_cast<float>(std::cos(angle));
      }
    }
  }
  return pe;
}

}  // namespace attnviz
