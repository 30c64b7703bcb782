// Which attention maps a command shows: --layer, --site, --head.
#pragma once

#include <optional>
#include <vector>

#include "attnviz/event/attention_block.hpp"

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

// The maps a model makes on one input, known before it runs: one id per (stack, layer, site), head 0
// (compute's attention_maps), each with n_heads heads. given_source: the sites depend on the input.
struct MapList {
  std::vector<HeadId> maps;
  int n_heads = 0;
  bool given_source = false;
};

// The maps of `list` that --layer and --site keep, whatever --head says.
std::vector<HeadId> selected_maps(const HeadSelection& selection, const MapList& list);

// The one check of --layer / --site / --head, before anything runs: a usage error naming what exists
// (one message per kind of mistake) unless the selection keeps at least one head of one map.
void check_selection(const HeadSelection& selection, const MapList& list);

}  // namespace attnviz
