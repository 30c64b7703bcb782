// Sinusoidal positions, computed in double as the annotated transformer's div_term = exp(2i ·
// −ln(base)/d).
#include "attnviz/compute/positional.hpp"

#include <cmath>

namespace attnviz {

Matrix sinusoidal_encoding(int n, int d, float base, SinusoidLayout layout) {
  Matrix pe(n, d);
  const int half = (d + 1) / 2;  // the sines' columns (Marian's sentinel)
  for (int pos = 0; pos < n; ++pos) {
    for (int i = 0; 2 * i < d; ++i) {
      const double angle = pos * std::exp(2.0 * i * -std::log(static_cast<double>(base)) / d);
      const bool has_cos = 2 * i + 1 < d;
      if (layout == SinusoidLayout::halves) {
        pe(pos, i) = static_cast<float>(std::sin(angle));
        if (has_cos) pe(pos, half + i) = static_cast<float>(std::cos(angle));
      } else {
        pe(pos, 2 * i) = static_cast<float>(std::sin(angle));
        if (has_cos) pe(pos, 2 * i + 1) = static_cast<float>(std::cos(angle));
      }
    }
  }
  return pe;
}

}  // namespace attnviz
