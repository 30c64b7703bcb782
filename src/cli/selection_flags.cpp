// The selection flags, declared once; checked against the model by check_selection (event/).
#include "attnviz/cli/selection_flags.hpp"

#include <algorithm>

namespace attnviz {

void add_selection_flags(CLI::App& cmd, SelectionFlags& flags) {
  cmd.add_option("--layer", flags.layer,
                 "only these layers: 3, a list with ranges 0,3-5, -1 for the last");
  cmd.add_option(
      "--head", flags.head,
      "only these heads: 3, a list with ranges 0,3-5, -1 for the last (tables: default head 0)");
  cmd.add_option("--site", flags.site, "only self or cross attention")
      ->check(CLI::IsMember({"self", "cross"}));
}

HeadSelection selection_of(const SelectionFlags& flags, const MapList& list) {
  int n_layers = 0;  // of the deepest stack: -1 is its last layer
  for (const HeadId& id : list.maps) n_layers = std::max(n_layers, id.layer + 1);
  HeadSelection s;
  if (!flags.layer.empty()) s.layer = parse_index_list(flags.layer, n_layers, "--layer", "layer");
  if (!flags.head.empty()) s.head = parse_index_list(flags.head, list.n_heads, "--head", "head");
  if (!flags.site.empty()) s.site = flags.site == "self" ? Site::self : Site::cross;
  return s;
}

}  // namespace attnviz
