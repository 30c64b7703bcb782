// Gathering row blocks into whole maps, for sinks that need a whole map (tables, full PNGs,
// --save).
#pragma once

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

// One whole map: rows arrive block by block and are copied into place.
struct GatheredMap {
  MapInfo info;   // its pointers (mask, labels) outlive the forward pass
  Matrix scores;  // [n_query, n_key], masked cells -inf
  Matrix probs;   // [n_query, n_key]

  explicit GatheredMap(const MapInfo& map_info)
      : info(map_info),
        scores(map_info.n_query, map_info.n_key),
        probs(map_info.n_query, map_info.n_key) {}
  void add(const AttentionBlock& block) {
    const int rows = block.row_end - block.row_begin;
    scores.middleRows(block.row_begin, rows) = block.scores;
    probs.middleRows(block.row_begin, rows) = block.probs;
  }
};

}  // namespace attnviz
