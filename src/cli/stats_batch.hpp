// `stats --batch FILE.jsonl`: each input's stats figures per head (all_stats_metrics), pooled over
// the inputs by run_batch; and their report, shared with `merge` of its shards.
#pragma once

#include <string>

#include "attnviz/analysis/head_stats.hpp"
#include "batch_run.hpp"

namespace attnviz::detail {

// The stats flags the batch report takes.
struct StatsBatchFlags {
  std::string format = "text";
  int precision = 3;
  std::string sort;
  bool ascending = false;
  int top = 0;
  std::string png_dir, chart;  // chart: "" = saturated
  int width = 0;               // text: --width (0 = detected): wider tables are warned about
  FigureFile file;             // the chart's format
};

// Runs the batch (this shard's inputs), each input into a StatsCollector; the items header records
// the saturation threshold and temperature beside batch_settings.
BatchResult run_stats_batch(PreparedRun& run, const InputArgs& in, const StatsOptions& stats,
                            const BatchArgs& batch, const BatchScan& scan, ItemsHeader& header);

// The pooled table on stdout and, with --png, the chart of one figure.
void report_stats_batch(const BatchResult& result, const ItemsHeader& header,
                        const StatsBatchFlags& flags);

}  // namespace attnviz::detail
