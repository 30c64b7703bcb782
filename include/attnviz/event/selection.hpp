// Which attention maps a command shows: --layer, --site, --head.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

// Some of the indices of a kind (--layer 0,3-5): every one when unset, else a sorted list of
// distinct ones. Made from one index as the std::optional<int> it replaced was.
class IndexSet {
 public:
  IndexSet() = default;
  IndexSet(std::nullopt_t) {}               // NOLINT: every index, as an unset optional
  IndexSet(int index) : indices_{index} {}  // NOLINT: that index alone
  static IndexSet of(std::vector<int> indices) {
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    IndexSet s;
    s.indices_ = std::move(indices);
    return s;
  }
  explicit operator bool() const { return !indices_.empty(); }  // whether it leaves some out
  bool contains(int index) const {
    return indices_.empty() || std::binary_search(indices_.begin(), indices_.end(), index);
  }
  const std::vector<int>& indices() const { return indices_; }  // empty: every index

 private:
  std::vector<int> indices_;
};

// Which maps a sink wants: --layer, --site, --head (unset = all).
struct HeadSelection {
  IndexSet layer;
  std::optional<Site> site;
  IndexSet head;
  bool matches(const HeadId& id) const {
    return layer.contains(id.layer) && (!site || *site == id.site) && head.contains(id.head);
  }
};

// "0,3-5,-1" as indices of `count` things: items joined by commas, each an index or an upward
// range A-B, a negative index counting from the end (-1 is the last). Usage errors name `flag`,
// and for an index out of range the count of `noun`s ("the model has 4 layers (0–3)").
IndexSet parse_index_list(const std::string& spec, int count, const std::string& flag,
                          const std::string& noun);

// The maps a model makes on one input, known before it runs: one id per (stack, layer, site), head
// 0 (compute's attention_maps), each with n_heads heads. given_source: the sites depend on the
// input.
struct MapList {
  std::vector<HeadId> maps;
  int n_heads = 0;
  bool given_source = false;
};

// The maps of `list` that --layer and --site keep, whatever --head says (each with --head's first
// head, else head 0).
std::vector<HeadId> selected_maps(const HeadSelection& selection, const MapList& list);

// The one check of --layer / --site / --head, before anything runs: a usage error naming what
// exists (one message per kind of mistake) unless the selection keeps at least one head of one map.
void check_selection(const HeadSelection& selection, const MapList& list);

}  // namespace attnviz
