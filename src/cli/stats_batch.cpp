// Statistics over a batch of inputs: per input a StatsCollector, its heads' figures pooled.
#include "stats_batch.hpp"

#include <fmt/format.h>

#include <iostream>

#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/reports/stats_batch_report.hpp"

namespace attnviz::detail {

namespace {

std::string stats_settings(const StatsOptions& s) {
  // {} is the shortest text that reads back as the same double: shards with other values never
  // merge
  return fmt::format("saturated: max weight >= {} · counterfactual temperature {}", s.saturation,
                     s.temperature);
}

}  // namespace

BatchResult run_stats_batch(PreparedRun& run, const InputArgs& in, const StatsOptions& stats,
                            const BatchArgs& batch, const BatchScan& scan, ItemsHeader& header) {
  header.command = "stats";
  for (const auto& m : all_stats_metrics()) header.patterns.push_back(m.name);
  header.settings = stats_settings(stats) + " | " + batch_settings(in, run);
  return run_batch(run, in, batch, scan, header,
                   [&stats](const PreparedRun& r, std::vector<std::string>& warnings) {
                     StatsCollector collector(stats);
                     forward_into(r, collector, warnings);
                     std::vector<HeadScores> heads;
                     for (const HeadStats& h : collector.heads()) {
                       HeadScores s;
                       s.id = h.id;
                       s.n = h.n_query;
                       s.attention_left =
                           1.0;  // a detection figure; every stats row keeps its attention
                       for (const auto& m : all_stats_metrics()) s.scores.push_back(m.value(h));
                       heads.push_back(std::move(s));
                     }
                     return heads;
                   });
}

void report_stats_batch(const BatchResult& result, const ItemsHeader& header,
                        const StatsBatchFlags& flags) {
  StatsBatchReportOptions o;
  o.format = parse_table_format(flags.format);
  o.precision = flags.precision;
  o.sort = flags.sort;
  o.ascending = flags.ascending;
  o.top = flags.top;
  o.model_name = header.model;
  o.input = result.input;
  o.settings =
      header.settings.substr(0, header.settings.find(" | "));  // the stats settings, not the run's
  if (!o.sort.empty()) find_stats_metric(o.sort, "--sort");
  const std::string chart = flags.chart.empty() ? "saturated" : flags.chart;
  if (!flags.png_dir.empty()) find_stats_metric(chart, "--chart");
  if (o.format == TableFormat::text) o.width = resolved_width(flags.width);
  const std::string table = render_stats_batch(result.summary, header.patterns, o);
  std::cout << table;
  std::cout.flush();
  if (o.format == TableFormat::text) {
    // The table's own lines: the title (under it) and the note (wrapped to the width) are prose a
    // terminal wraps without harm.
    const int width = o.width;
    const int widest = widest_line(table.substr(table.find('\n') + 1));
    if (width > 0 && widest > width) {
      std::cerr << fmt::format(
          "attnviz: warning: the batch table needs {} columns, more than --width {} (CSV and JSON "
          "are never cut)\n",
          widest, width);
    }
  }
  if (!flags.png_dir.empty()) {
    write_stats_batch_chart(flags.png_dir, result.summary, header.patterns, chart,
                            fmt::format("{} · {}", o.model_name, o.input), flags.file);
    note_figures_written(1, flags.png_dir);
  }
}

}  // namespace attnviz::detail
