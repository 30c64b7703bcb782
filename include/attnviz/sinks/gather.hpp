// Gathering row blocks into whole maps, for sinks that need a whole map (tables, full PNGs, --save).
#pragma once

#include <optional>
#include <string>

#include "attnviz/compute/attention_block.hpp"

namespace attnviz {

// Which maps a sink wants: --layer, --site, --head (unset = all).
struct HeadSelection {
  std::optional<int> layer;
  std::optional<Site> site;
  std::optional<int> head;
  bool matches(const HeadId& id) const {
    return (!layer || *layer == id.layer) && (!site || *site == id.site) && (!head || *head == id.head);
  }
};

// One whole map: rows arrive block by block and are copied into place.
struct GatheredMap {
  MapInfo info;  // its pointers (mask, labels) outlive the forward pass
  Matrix scores;  // [n_query, n_key], masked cells -inf
  Matrix probs;   // [n_query, n_key]

  explicit GatheredMap(const MapInfo& map_info)
      : info(map_info), scores(map_info.n_query, map_info.n_key), probs(map_info.n_query, map_info.n_key) {}
  void add(const AttentionBlock& block) {
    const int rows = block.row_end - block.row_begin;
    scores.middleRows(block.row_begin, rows) = block.scores;
    probs.middleRows(block.row_begin, rows) = block.probs;
  }
};

}  // namespace attnviz
