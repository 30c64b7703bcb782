// `attnviz check`: run the model and verify every map (masks, row sums, NaN/Inf); exit 3 on a
// problem. With --batch, every input of a JSON-lines file, one at a time.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/cli/check_plan.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/reports/check_report.hpp"
#include "batch_input.hpp"

namespace attnviz {

namespace {

// text: one line per finding, then the summary (on stderr as the error when a check fails);
// json: one document on stdout either way. Exit 3 when a check fails.
void check_command(const CheckArgs& a, const CheckPlan& plan) {
  const PreparedRun run = prepare_run(a.in);
  CheckCollector check(run.selection);
  // forward's warnings (fully masked rows) are findings here, reported below with the head named.
  forward(run.model, run.inputs, run.options, &check);
  const bool json = plan.json;
  if (json) {
    std::cout << check_json(check);
  } else {
    for (const auto& f : check.findings()) std::cout << f.message() << '\n';
  }
  std::cout.flush();
  if (!check.findings().empty()) throw Error(check.summary(), k_exit_check_failed);
  if (!json) std::cout << check.summary() << '\n';
}

// check --batch: each input checked alone; text: its findings prefixed by its line, json: one line
// per input (its check_json with "item", "line" and "id"), then the totals; exit 3 when any fails.
void check_batch(const CheckArgs& a, const CheckPlan& plan) {
  const auto [shard, shards] = plan.shard;
  const BatchScan scan = scan_batch(a.batch);
  const int64_t total = scan.inputs;
  PreparedRun run = prepare_model(a.in, detail::tokenizer_use(scan));
  const bool json = plan.json;
  const int64_t mine = shard_size(total, shard, shards);
  int64_t failed = 0, problems = 0, maps = 0;
  BatchNotes notes;
  {
    BatchProgress progress("check", mine);
    int64_t done = 0;
    for_each_batch_line(a.batch, [&](int64_t index, int64_t line, const std::string& text) {
      if (index % shards != shard) return;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
        InputArgs item = a.in;
        item.target = detail::batch_sequence(j);
        notes.add(line, prepare_inputs(run, item));
      } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("{} line {}: not JSON: {}", a.batch, line, e.what()));
      } catch (const Error& e) {
        throw batch_line_error(a.batch, line, e);
      }
      CheckCollector check(run.selection);
      forward(run.model, run.inputs, run.options, &check);
      maps += check.maps_checked();
      problems += static_cast<int64_t>(check.findings().size());
      failed += check.findings().empty() ? 0 : 1;
      if (json) {
        auto doc = nlohmann::ordered_json::parse(check_json(check));
        nlohmann::ordered_json out;
        out["item"] = index;
        out["line"] = line;
        out["id"] = j.contains("id") ? j["id"] : nlohmann::json();
        out["findings"] = doc["findings"];
        out["summary"] = doc["summary"];
        std::cout << json_text(out) << '\n';
      } else {
        for (const auto& f : check.findings())
          std::cout << fmt::format("{} line {}: {}\n", a.batch, line, f.message());
      }
      progress.step(++done);
    });
  }
  const std::string summary =
      failed == 0 ? fmt::format("check: {}, {}, no problems", count_of(mine, "input"),
                                count_of(maps, "map"))
                  : fmt::format("check: {} in {} of {} ({})", count_of(problems, "problem"), failed,
                                count_of(mine, "input"), count_of(maps, "map"));
  if (json) {
    nlohmann::ordered_json totals;
    totals["summary"] = {{"inputs", mine},
                         {"inputs_with_problems", failed},
                         {"problems", problems},
                         {"maps", maps},
                         {"message", summary}};
    std::cout << json_text(totals) << '\n';
  }
  std::cout.flush();
  if (!notes_quiet()) notes.report(std::cerr, "note", mine);
  if (failed > 0) throw Error(summary, k_exit_check_failed);
  if (!json) std::cout << summary << '\n';
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
                  "text (one line per problem) or json (findings as fields, and a summary; with "
                  "--batch one line "
                  "per input, then the totals)")
      ->check(CLI::IsMember({"text", "json"}));
  detail::add_batch_flags(*cmd, args->batch, args->shard, "check",
                          "findings are named by line, exit 3 when any fails");
  cmd->callback([args] {
    const CheckPlan plan = resolve_check(*args);  // every flag checked: nothing has loaded yet
    if (plan.batch) return check_batch(*args, plan);
    check_command(*args, plan);
  });
}

}  // namespace attnviz
