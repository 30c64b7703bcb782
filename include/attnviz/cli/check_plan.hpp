// `attnviz check` in three steps: its flags (CheckArgs), resolved before a model loads
// (resolve_check), then run (check_command.cpp).
#pragma once

#include <string>
#include <utility>

#include "attnviz/cli/run_args.hpp"

namespace attnviz {

struct CheckArgs {
  InputArgs in;
  std::string format = "text";
  std::string batch, shard;
};

struct CheckPlan {
  bool batch = false;
  bool json = false;
  std::pair<int, int> shard{0, 1};  // --shard K/N
};

// Usage errors (exit 2): --shard without --batch, input flags or --mask beside --batch, a bad
// --shard. Loads no model.
CheckPlan resolve_check(const CheckArgs& args);

}  // namespace attnviz
