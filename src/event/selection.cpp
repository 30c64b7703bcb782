// Checking --layer / --site / --head against the maps a model makes, with messages naming what
// exists.
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

// One item's index ("3", "-1"), resolved against `count`; nullopt when it is no integer.
std::optional<long long> item_index(const std::string& text, int count) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  size_t at = text[0] == '-' ? 1 : 0;
  if (at == text.size()) return std::nullopt;
  for (size_t i = at; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  const long long value = std::stoll(text);
  return value < 0 ? count + value : value;
}

}  // namespace

IndexSet parse_index_list(const std::string& spec, int count, const std::string& flag,
                          const std::string& noun) {
  const auto syntax = [&] {
    return usage_error(
        fmt::format("{} {}: expected {} numbers and ranges, such as 3, 0,3-5 or -1 (the last)",
                    flag, spec, noun));
  };
  std::vector<std::string> items(1);
  for (const char c : spec) {
    if (c == ',') {
      items.emplace_back();
    } else {
      items.back().push_back(c);
    }
  }
  std::vector<int> indices;
  for (const std::string& item : items) {
    // "A-B": the dash after the first character splits it ("-3--1" is -3 to -1).
    const size_t dash = item.find('-', 1);
    const auto first = item_index(item.substr(0, dash), count);
    const auto last = dash == std::string::npos ? first : item_index(item.substr(dash + 1), count);
    if (!first || !last) throw syntax();
    for (const long long index : {*first, *last}) {
      if (index < 0 || index >= count) {
        throw usage_error(fmt::format(
            "{} {}: {}the model has {} ({})", flag, spec,
            items.size() > 1 || dash != std::string::npos ? item + " is out of range: " : "",
            count_of(count, noun), index_range(count)));
      }
    }
    if (*first > *last)
      throw usage_error(fmt::format("{} {}: the range {} runs downward", flag, spec, item));
    for (long long i = *first; i <= *last; ++i) indices.push_back(static_cast<int>(i));
  }
  return IndexSet::of(std::move(indices));
}

std::vector<HeadId> selected_maps(const HeadSelection& selection, const MapList& list) {
  std::vector<HeadId> kept;
  for (HeadId id : list.maps) {
    id.head = selection.head ? selection.head.indices().front() : 0;
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
  if (sel.head && sel.head.indices().back() >= list.n_heads) {
    throw usage_error(fmt::format("--head {}: the model has {} ({})", sel.head.indices().back(),
                                  count_of(list.n_heads, "head"), index_range(list.n_heads)));
  }
  if (sel.layer && sel.layer.indices().back() >= n_layers) {
    throw usage_error(fmt::format("--layer {}: the model has {} ({})", sel.layer.indices().back(),
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
