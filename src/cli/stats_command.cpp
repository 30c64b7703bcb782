// `attnviz stats`: softmax-saturation statistics per layer × head, with the unscaled
// counterfactual.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string_view>

#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/stats_plan.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/render/scale_note.hpp"
#include "attnviz/reports/stats_charts.hpp"
#include "attnviz/reports/stats_report.hpp"
#include "batch_input.hpp"
#include "stats_batch.hpp"

namespace attnviz {

namespace {

// stats --batch: every input's figures per head, pooled over the inputs (or this shard's).
void stats_batch(const StatsArgs& a) {
  const detail::StatsBatchFlags flags{a.format,  a.precision, a.sort,  a.ascending,  a.top,
                                      a.png_dir, a.chart,     a.width, a.figure_file};
  const BatchScan scan = scan_batch(a.batch.file);
  PreparedRun run = prepare_model(a.in, detail::tokenizer_use(scan));
  ItemsHeader header;
  const BatchResult result = detail::run_stats_batch(
      run, a.in, StatsOptions{a.saturation, a.temperature, run.selection}, a.batch, scan, header);
  detail::report_stats_batch(result, header, flags);
}

void stats_command(const StatsArgs& a) {
  const StatsPlan plan = resolve_stats(a);  // every flag checked: nothing has loaded yet
  if (plan.batch) return stats_batch(a);
  StatsReportOptions report = plan.report;
  const PreparedRun run = prepare_run(a.in);
  report.model_name = run.model.name;
  StatsCollector stats(StatsOptions{a.saturation, a.temperature, run.selection});
  // stats prints after the run: the progress line never meets stdout's output.
  run_collecting(run, stats);
  // prepare_run's check_selection keeps at least one head: an empty list is attnviz's own bug.
  if (stats.heads().empty()) throw Error("internal error: the checked selection reached no head");
  // Every head shares --qk-scale: the first says whether the "scaled" figures use 1/sqrt(d_k).
  const HeadStats& first = stats.heads().front();
  report.scale_note = first.additive ? k_additive_note : scale_note(first.scale, first.d_k);
  const std::string table = render_stats(stats.heads(), stats.options(), report);
  std::cout << table;
  std::cout.flush();
  // Map, head and role are repeated in every block of columns: they alone may be too wide.
  if (const int widest = widest_line(table); report.width > 0 && widest > report.width) {
    std::cerr << fmt::format(
        "attnviz: warning: the stats table needs {} columns, more than --width {}\n", widest,
        report.width);
  }
  if (!a.png_dir.empty()) {
    const auto charts = write_stats_charts(
        a.png_dir, stats.heads(), find_stats_metric(a.chart, "--chart"), stats.options(),
        report.model_name + (report.scale_note.empty() ? "" : " · " + report.scale_note),
        a.figure_file);
    note_figures_written(charts.size(), a.png_dir);
  }
}

}  // namespace

void add_stats_command(CLI::App& app) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand("stats",
                                     "softmax saturation, entropy, sinks and head roles per head, "
                                     "with the unscaled counterfactual");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--saturation", args->saturation,
                  "a row is saturated when its max weight >= this")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--temperature", args->temperature,
                  "counterfactual logits = q·k / T (default 1: simply unscaled)")
      ->check(positive_number());
  add_table_format_flag(*cmd, args->format, "text, csv, json (every figure) or markdown");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text)");
  cmd->add_option("--sort", args->sort,
                  "sort heads by a statistic, largest first (e.g. entropy, saturated, sink)");
  cmd->add_flag("--ascending", args->ascending, "with --sort: smallest first");
  cmd->add_option(
      "--role", args->role,
      "only heads with this role: broad, sink, previous-token, self, concentrated, mixed");
  cmd->add_option("--top", args->top, "only the first N heads (after --sort)")
      ->check(positive_number());
  cmd->add_option("--png", args->png_dir,
                  "write charts into this folder (layer × head grid, histogram)");
  cmd->add_option("--chart", args->chart,
                  "statistic of the grid chart (default saturated; e.g. entropy, sink)");
  add_figure_flags(*cmd, args->figure_flags);
  add_width_flag(*cmd, args->width,
                 "text: terminal width in columns; wider tables are split (default: detected)");
  detail::add_batch_flags(
      *cmd, args->batch.file, args->batch.shard, "analyse",
      "the table shows each head's figures as the mean over them (attnviz merge pools shards' "
      "--items)");
  cmd->add_option("--items", args->batch.items,
                  "with --batch: write each input's figures per head as JSON lines into this file");
  cmd->callback([args, cmd] {
    args->figure_file = figure_file(*cmd, args->figure_flags, {"--chart"});
    stats_command(*args);
  });
}

}  // namespace attnviz
