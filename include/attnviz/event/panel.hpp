// --panel: the heads a paper's panel figure shows side by side, named as "L3H5" (layer 3, head 5),
// with an optional stack before ("decoder.L1H0") and site after ("decoder.L1H0.cross"; self when
// not given).
#pragma once

#include <string>
#include <vector>

#include "attnviz/event/head_id.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

inline constexpr size_t k_max_panel_heads = 12;

// "L3H5,L5H1" → the heads in order; a usage Error names a malformed or repeated item, or too many.
std::vector<HeadId> parse_panel(const std::string& spec);
// "L3H5", "decoder.L1H0.cross": the name parse_panel reads back (self is not written).
std::string panel_name(const HeadId& id);
// Every panel head is a head of a map the model makes on this input: a usage Error names the first
// that is not, and what exists.
void check_panel(const std::vector<HeadId>& panel, const MapList& list);

}  // namespace attnviz
