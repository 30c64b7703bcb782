// residual's flags resolved before a model loads.
#include "attnviz/cli/residual_plan.hpp"

#include "attnviz/core/error.hpp"

namespace attnviz {

TableFormat resolve_residual(const ResidualArgs& a) {
  const TableFormat format = parse_table_format(a.format);
  if (!a.in.selection.head.empty() || !a.in.selection.site.empty()) {
    throw usage_error(
        "residual reports whole sublayers: --head and --site do not apply (--layer picks a layer)");
  }
  return format;
}

}  // namespace attnviz
