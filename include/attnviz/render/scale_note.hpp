// The note titles and captions carry when q·k was not scaled by 1/sqrt(d_k) (--qk-scale), so a
// picture never hides that its weights come from a different softmax.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

// "" for the default 1/sqrt(d_k); else "q·k unscaled (not 1/√64)" or "q·k × 0.5 (not 1/√64)".
inline std::string scale_note(double scale, int d_k) {
  const double standard = 1.0 / std::sqrt(static_cast<double>(d_k));
  if (d_k <= 0 || std::fabs(scale - standard) <= 1e-6 * standard) return "";
  const std::string factor = scale == 1.0 ? "unscaled" : fmt::format("× {:.4g}", scale);
  return fmt::format("q·k {} (not 1/√{})", factor, d_k);
}

// What a map's scores are when they are not scale · q·k: Bahdanau's additive score.
inline constexpr const char* k_additive_note = "additive scores v·tanh(W s + U h) + b (Bahdanau)";

// The map's note: the additive score's, else scale_note's.
inline std::string score_note(const MapInfo& info) {
  return info.additive ? k_additive_note : scale_note(info.scale, info.d_head);
}

}  // namespace attnviz
