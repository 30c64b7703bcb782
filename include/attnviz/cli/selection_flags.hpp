// The selection flags --layer, --site, --head, shared by run, stats and check.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "attnviz/event/selection.hpp"

namespace attnviz {

struct SelectionFlags {
  std::string layer, head;  // "" (all) or a list: "3", "0,3-5", "-1" (parse_index_list)
  std::string site;         // "", "self" or "cross"
};

void add_selection_flags(CLI::App& cmd, SelectionFlags& flags);

// The selection the flags name among `list`'s maps: the lists resolved against its layer and head
// counts (usage errors naming them); prepare_run then checks the rest (check_selection).
HeadSelection selection_of(const SelectionFlags& flags, const MapList& list);

}  // namespace attnviz
