// check's flags resolved before a model loads.
#include "attnviz/cli/check_plan.hpp"

#include "attnviz/batch/batch_file.hpp"
#include "attnviz/core/error.hpp"
#include "batch_input.hpp"

namespace attnviz {

CheckPlan resolve_check(const CheckArgs& a) {
  CheckPlan plan;
  plan.batch = !a.batch.empty();
  plan.json = a.format == "json";
  if (!plan.batch) {
    if (!a.shard.empty()) throw usage_error("--shard goes with --batch");
    return plan;
  }
  detail::refuse_inputs_beside_batch(a.in);
  plan.shard = parse_shard(a.shard);
  return plan;
}

}  // namespace attnviz
