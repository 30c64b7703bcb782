// `attnviz stats` in three steps: its flags (StatsArgs, as CLI11 fills them), resolved before a
// model loads (resolve_stats: every pairing checked, names parsed), then run (stats_command.cpp).
#pragma once

#include <string>

#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/reports/stats_report.hpp"

namespace attnviz {

struct StatsArgs {
  InputArgs in;
  double saturation = 0.99;
  double temperature = 1.0;
  std::string format = "text";
  int precision = 3;
  std::string sort, role;
  bool ascending = false;
  int top = 0;
  std::string png_dir;
  std::string chart = "saturated";
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;
  int width = 0;    // text: columns of the terminal (0 = detected)
  BatchArgs batch;  // --batch, --items, --shard
};

// What the flags resolve to: one input's report, or a batch's (whose flags its report reads).
struct StatsPlan {
  bool batch = false;
  StatsReportOptions report;  // without --batch: format, precision, order, width
};

// Usage errors (exit 2) for what cannot go together: --items / --shard without --batch, --role
// with --batch, an unknown --sort / --chart / --role / --format; an --items file that cannot be
// written. Loads no model and reads no input.
StatsPlan resolve_stats(const StatsArgs& args);

}  // namespace attnviz
