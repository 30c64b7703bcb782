// Checking --layer / --site / --head against the maps a model makes, with messages naming what exists.
#include "attnviz/event/selection.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"

namespace attnviz {

namespace {

// "0–3", or "0" for a single index.
std::string index_range(int count) {
  return count == 1 ? "0" : fmt::format("0\u2013{}", count - 1);
}

}  // namespace

std::vector<HeadId> selected_maps(const HeadSelection& selection, const MapList& list) {
  std::vector<HeadId> kept;
  for (HeadId id : list.maps) {
    id.head = selection.head.value_or(0);
    if (selection.matches(id)) kept.push_back(id);
  }
  return kept;
}

void check_selection(const HeadSelection& sel, const MapList& list) {
  int n_layers = 0;
  bool has_self = false, has_cross = false;
  for (const HeadId& id : list.maps) {
    n_layers = std::max(n_layers, id.layer + 1);
    (id.site == Site::self ? has_self : has_cross) = true;
  }
  if (sel.head && *sel.head >= list.n_heads) {
    throw usage_error(fmt::format("--head {}: the model has {} ({})", *sel.head,
                                  count_of(list.n_heads, "head"), index_range(list.n_heads)));
  }
  if (sel.layer && *sel.layer >= n_layers) {
    throw usage_error(fmt::format("--layer {}: the model has {} ({})", *sel.layer,
                                  count_of(n_layers, "layer"), index_range(n_layers)));
  }
  if (sel.site && !(*sel.site == Site::self ? has_self : has_cross)) {
    throw usage_error(fmt::format("--site {}: this model{} has only {} attention",
                                  site_name(*sel.site), list.given_source ? " on this input" : "",
                                  has_self ? "self" : "cross"));
  }
  if (selected_maps(sel, list).empty()) {
    throw usage_error("--layer and --site together select no attention map of this model");
  }
}

}  // namespace attnviz
