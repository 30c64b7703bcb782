// `attnviz diff` in three steps: its flags (DiffArgs), resolved before anything is read or run
// (resolve_diff), then run (diff_command.cpp): two --save files, or two runs given inline.
#pragma once

#include <string>
#include <vector>

#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/run_args.hpp"

namespace attnviz {

struct DiffArgs {
  std::string a, b;  // two --save files, or
  InputArgs in;     // A's run given inline (-m …; its --layer/--site/--head select in both modes)
  RunBFlags run_b;  // what differs in B
  std::string sort = "jsd";
  int top = 0;
  std::string format = "text";
  int precision = 4;
  std::string png_dir;
  int max_pixels = 1024;
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;
  // Which flags were given (the parse step fills it): a file diff refuses an inline run's.
  std::vector<std::string> given;
};

struct DiffPlan {
  bool files = false;  // two --save files; else A's run inline, B with the --b-… flags applied
};

// Usage errors (exit 2): files and -m together, one file, no input at all, an inline run's flag
// beside two files (it would be ignored), an unknown --sort. Reads no file.
DiffPlan resolve_diff(const DiffArgs& args);

}  // namespace attnviz
