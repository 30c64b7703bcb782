// Which attention maps a command shows: --layer, --site, --head.
#pragma once

#include <optional>

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

}  // namespace attnviz
