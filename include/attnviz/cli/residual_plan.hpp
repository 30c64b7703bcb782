// `attnviz residual` in three steps: its flags (ResidualArgs), resolved before a model loads
// (resolve_residual), then run (residual_command.cpp).
#pragma once

#include <string>

#include "attnviz/cli/run_args.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

struct ResidualArgs {
  InputArgs in;
  std::string format = "text";
  int precision = 3;
};

// The table format; usage errors (exit 2) for --head or --site (a sublayer is no one head's) and an
// unknown --format. Loads no model.
TableFormat resolve_residual(const ResidualArgs& args);

}  // namespace attnviz
