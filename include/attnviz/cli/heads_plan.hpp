// `attnviz heads` in three steps: its flags (HeadsArgs, as CLI11 fills them), resolved before a
// model loads (resolve_heads: every pairing checked, the patterns named and the sort found among
// them), then run (heads_command.cpp).
#pragma once

#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/reports/heads_report.hpp"

namespace attnviz {

struct HeadsArgs {
  InputArgs in;
  std::vector<std::string> patterns;
  std::string sort;
  std::string measure = "mul";
  bool exclude_bos = false, exclude_current = false;
  std::string format = "text";
  int precision = 3;
  int top = 0;
  std::string png_dir;
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;
  BatchArgs batch;  // --batch, --items, --shard
};

// What the flags resolve to. The patterns are built-in names or 0/1 matrix files, which are read
// once the input's length is known; each is named (a file by its stem) and the names are unique.
struct HeadsPlan {
  bool batch = false;
  std::vector<std::string> patterns;  // as given, or the four built-in ones
  DetectionOptions detection;         // measure and exclusions (patterns: added by the run)
  HeadsReportOptions report;          // format, precision, top and the sort's pattern
};

// Usage errors (exit 2) for what cannot go together: --items / --shard without --batch, input
// flags or a pattern file beside --batch, an unknown pattern, measure, format or --sort, two
// patterns of one name; an --items file that cannot be written. Loads no model.
HeadsPlan resolve_heads(const HeadsArgs& args);

// --sort NAME as an index into the patterns' names (default: the first); a usage Error otherwise.
size_t sort_index(const std::string& sort, const std::vector<std::string>& names);

}  // namespace attnviz
