// The selection flags --layer, --site, --head, shared by run, stats and check.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "attnviz/event/selection.hpp"

namespace attnviz {

struct SelectionFlags {
  std::optional<int> layer, head;
  std::string site;  // "", "self" or "cross"
};

void add_selection_flags(CLI::App& cmd, SelectionFlags& flags);

// The selection the flags name; prepare_run checks it against the model (check_selection).
HeadSelection selection_of(const SelectionFlags& flags);

}  // namespace attnviz
