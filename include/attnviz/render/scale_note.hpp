// The note titles and captions carry when q·k was not scaled by 1/sqrt(d_k) (--qk-scale), so a
// picture never hides that its weights come from a different softmax.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace attnviz {

// "" for the default 1/sqrt(d_k); else "q·k unscaled (not 1/√64)" or "q·k × 0.5 (not 1/√64)".
inline std::string scale_note(double scale, int d_k) {
  const double standard = 1.0 / std::sqrt(static_cast<double>(d_k));
  if (d_k <= 0 || std::fabs(scale - standard) <= 1e-6 * standard) return "";
  const std::string factor = scale == 1.0 ? "unscaled" : fmt::format("× {:.4g}", scale);
  return fmt::format("q·k {} (not 1/√{})", factor, d_k);
}

}  // namespace attnviz
