// `attnviz check`: run the model and verify every map (masks, row sums, NaN/Inf); exit 3 on a
// problem.
#include <iostream>
#include <memory>

#include "attnviz/analysis/check.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

void check_command(const InputArgs& in) {
  const PreparedRun run = prepare_run(in);
  CheckCollector check(run.selection);
  // forward's warnings (fully masked rows) are findings here, reported below with the head named.
  forward(run.model, run.inputs, run.options, &check);
  for (const auto& f : check.findings()) std::cout << f.message() << '\n';
  std::cout.flush();
  if (check.maps_checked() == 0)
    throw usage_error("no attention map matches --layer / --site / --head");
  if (!check.findings().empty()) throw Error(check.summary(), k_exit_check_failed);
  std::cout << check.summary() << '\n';
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<InputArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "verify every attention map: fully masked rows, weight on masked keys, row sums, NaN/Inf "
      "(exit 3 when a check fails)");
  add_input_flags(*cmd, *args);
  cmd->callback([args] { check_command(*args); });
}

}  // namespace attnviz
