// `stats --batch` (and `merge` of its shards): each head's stats figures pooled over many inputs —
// per figure the mean over the inputs that have it, with the standard deviation, min and max — as a
// table (text, CSV, JSON, Markdown) and a layer × head chart.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/reports/stats_report.hpp"

namespace attnviz {

struct StatsBatchReportOptions {
  TableFormat format = TableFormat::text;
  int precision = 3;
  std::string sort;  // a figure's name: heads ranked by its mean, largest first; "" = forward order
  bool ascending = false;
  int top = 0;
  std::string model_name, input, settings;  // settings: "saturated: max weight >= 0.99", …
  int width = 0;  // text: the note under the table wrapped to this many columns (0 = not wrapped)
};

// `heads` are ScoreAggregate(skip_undefined) summaries whose scores are the figures named by
// `figures` (all_stats_metrics' names, in order). Text and Markdown show the mean ± standard
// deviation of a few figures (the sort figure first); CSV and JSON every figure's mean, stddev,
// min, max and the number of inputs that had it.
std::string render_stats_batch(const std::vector<HeadScores>& heads,
                               const std::vector<std::string>& figures,
                               const StatsBatchReportOptions& options);

// DIR/stats.batch.{figure}.png (.svg, .pdf: file.format): a layer × head chart of one figure's mean
// over the inputs.
std::filesystem::path write_stats_batch_chart(const std::filesystem::path& dir,
                                              const std::vector<HeadScores>& heads,
                                              const std::vector<std::string>& figures,
                                              const std::string& figure, const std::string& title,
                                              const FigureFile& file);

}  // namespace attnviz
