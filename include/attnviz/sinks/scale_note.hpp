// The note titles and captions carry when q·k was not scaled by 1/sqrt(d_k) (--qk-scale), so a
// picture never hides that its weights come from a different softmax.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "attnviz/compute/attention_block.hpp"

namespace attnviz {

// "" for the default 1/sqrt(d_k); else "q·k unscaled (not 1/√64)" or "q·k × 0.5 (not 1/√64)".
inline std::string scale_note(const MapInfo& info) {
  const double standard = 1.0 / std::sqrt(static_cast<double>(info.d_head));
  if (info.d_head <= 0 || std::fabs(info.scale - standard) <= 1e-6 * standard) return "";
  const std::string factor = info.scale == 1.0f ? "unscaled" : fmt::format("× {:.4g}", info.scale);
  return fmt::format("q·k {} (not 1/√{})", factor, info.d_head);
}

}  // namespace attnviz
