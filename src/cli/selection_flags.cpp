// The selection flags, declared once; checked against the model by check_selection (event/).
#include "attnviz/cli/selection_flags.hpp"

#include "attnviz/cli/validators.hpp"

namespace attnviz {

void add_selection_flags(CLI::App& cmd, SelectionFlags& flags) {
  cmd.add_option("--layer", flags.layer, "only this layer")->check(non_negative_number());
  cmd.add_option("--head", flags.head, "only this head (tables: default head 0)")
      ->check(non_negative_number());
  cmd.add_option("--site", flags.site, "only self or cross attention")
      ->check(CLI::IsMember({"self", "cross"}));
}

HeadSelection selection_of(const SelectionFlags& flags) {
  HeadSelection s;
  s.layer = flags.layer;
  s.head = flags.head;
  if (!flags.site.empty()) s.site = flags.site == "self" ? Site::self : Site::cross;
  return s;
}

}  // namespace attnviz
