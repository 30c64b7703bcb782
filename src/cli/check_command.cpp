// `attnviz check`: run the model and verify every map (masks, row sums, NaN/Inf); exit 3 on a
// problem.
#include <iostream>
#include <memory>
#include <string>

#include "attnviz/sinks/check_report.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

struct CheckArgs {
  InputArgs in;
  std::string format = "text";
};

// text: one line per finding, then the summary (on stderr as the error when a check fails);
// json: one document on stdout either way. Exit 3 when a check fails.
void check_command(const CheckArgs& a) {
  const PreparedRun run = prepare_run(a.in);
  CheckCollector check(run.selection);
  // forward's warnings (fully masked rows) are findings here, reported below with the head named.
  forward(run.model, run.inputs, run.options, &check);
  const bool json = a.format == "json";
  if (json) {
    std::cout << check_json(check);
  } else {
    for (const auto& f : check.findings()) std::cout << f.message() << '\n';
  }
  std::cout.flush();
  if (!check.findings().empty()) throw Error(check.summary(), k_exit_check_failed);
  if (!json) std::cout << check.summary() << '\n';
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "verify every attention map: fully masked rows, weight on masked keys, row sums, NaN/Inf "
      "(exit 3 when a check fails)");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--format", args->format,
                  "text (one line per problem) or json (findings as fields, and a summary)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->callback([args] { check_command(*args); });
}

}  // namespace attnviz
