// `attnviz run`: resolve the flags, prepare the forward pass, build the outputs, run, report.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "attnviz/analysis/check.hpp"
#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/predictions.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/rollout_maps.hpp"
#include "attnviz/cli/run_plan.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/sinks/html_sink.hpp"
#include "attnviz/sinks/overlay_sink.hpp"
#include "attnviz/sinks/png_sink.hpp"
#include "attnviz/sinks/progress_sink.hpp"
#include "attnviz/sinks/save_sink.hpp"

namespace attnviz {

void run_command(const RunArgs& a) {
  const RunPlan plan = resolve_run(a);  // every flag checked: nothing has loaded yet
  const PreparedRun run = prepare_run(plan.in);
  const bool view_tables = plan.table != TableKind::none;
  check_logits_flag(run, a.logits, plan.format, view_tables);
  RunOutputs outputs = build_run_outputs(a, plan, run);
  const TerminalSink& view = *outputs.view;
  const bool prints_maps =
      (!a.no_heatmap && a.overlay != "-" && plan.format == TableFormat::text) || view_tables ||
      a.overlay == "-";
  const TableStyle& table_style = outputs.table_style;

  // The progress line shares the terminal with stdout only when nothing is printed there per map:
  // a heatmap or table drawn on the same terminal would land inside it (and shows progress itself).
  const bool stdout_per_map = isatty(STDOUT_FILENO) != 0 && prints_maps;
  auto progress = std::make_unique<ProgressSink>(
      std::cerr, isatty(STDERR_FILENO) != 0 && !stdout_per_map, run.maps);
  ProgressSink& progress_line = *progress;
  SinkList model_sinks;  // what forward sends the model's maps to: the outputs, or the rollout's
  if (a.rollout) {
    model_sinks.add(rollout_into(outputs.sinks, a, run));
  } else {
    model_sinks.add(std::make_unique<ForwardingSink>(outputs.sinks));
  }
  model_sinks.add(std::move(progress));
  // --format json with --logits is one document, {"maps": [tables…], "logits": {…}}: the tables
  // stream into "maps" as they come, the predictions follow after the run.
  const bool json_pair = a.logits > 0 && plan.format == TableFormat::json && view_tables;
  if (json_pair) std::cout << "{\"maps\": ";
  const ForwardResult result = forward(run.model, run.inputs, run.options, &model_sinks);
  progress_line.finish();  // erased before any warning
  for (const auto& w : result.warnings) std::cerr << "attnviz: warning: " << w << '\n';
  if (outputs.save) {
    outputs.save->add_tensor("hidden", result.hidden);
    if (run.pixel_values) outputs.save->add_tensor("pixel_values", *run.pixel_values);
    if (result.encoder_hidden) outputs.save->add_tensor("encoder.hidden", *result.encoder_hidden);
  }
  outputs.sinks.finish();
  if (json_pair) std::cout << (view.printed_json() ? "," : "[],") << "\n\"logits\": ";
  if (a.logits > 0) std::cout << predictions_table(run, result.hidden, a.logits, table_style);
  if (json_pair) std::cout << "}\n";
  std::cout.flush();
  if (outputs.png) note_figures_written(outputs.png->written().size(), a.png_dir);
  if (outputs.overlay && a.overlay != "-")
    note_figures_written(static_cast<size_t>(outputs.overlay->written()), a.overlay);
  if (outputs.non_finite) std::cerr << outputs.non_finite->warnings();
  for (const auto& note : view.notes()) std::cerr << "attnviz: warning: " << note << '\n';
  if (const HtmlSink* html = outputs.html) {
    if (html->maps_written() > 0) {  // one line, as --png gives: what was written, where
      std::cerr << fmt::format("attnviz: wrote {} ({})\n", a.html,
                               count_of(static_cast<long long>(html->maps_written()), "map"));
    }
    for (const auto& note : html->notes()) std::cerr << "attnviz: warning: " << note << '\n';
  }
  if (const CheckCollector* check = outputs.check) {  // stdout holds the output: findings to stderr
    for (const auto& f : check->findings()) std::cerr << "attnviz: check: " << f.message() << '\n';
    if (!check->findings().empty()) throw Error(check->summary(), k_exit_check_failed);
  }
}

}  // namespace attnviz
