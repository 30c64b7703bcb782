// The colour scale of a map's figure and of its --html view: the rule that picks linear or log.
#pragma once

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

// The colour scale of figures: linear, log (four decades below the max), or auto: log for a causal
// map over k_auto_log_tokens tokens (its first rows hold weight 1 and ½ by construction, which on a
// linear scale leaves every later row near the bottom colour), linear otherwise.
enum class ColourScale { auto_scale, linear, log };
inline constexpr int k_auto_log_tokens = 32;
// Whether a map is drawn on a log scale under `scale` (figures and the --html page alike).
bool log_scale_for(const MapInfo& info, ColourScale scale);

}  // namespace attnviz
