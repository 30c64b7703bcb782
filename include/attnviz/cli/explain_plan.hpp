// `attnviz explain` in three steps: its flags (ExplainArgs), resolved before a model loads
// (resolve_explain), then run (explain_command.cpp).
#pragma once

#include <string>

#include "attnviz/cli/run_args.hpp"
#include "attnviz/reports/explain_report.hpp"

namespace attnviz {

struct ExplainArgs {
  InputArgs in;
  std::string stack;  // --stack encoder|decoder (an encoder-decoder's self maps)
  std::string cell;   // --cell I,J
  std::string format = "text";
  int precision = 3, rows = 6, cols = 6;
};

struct ExplainPlan {
  ExplainOptions options;  // format, precision, rows, cols, --cell (the model's facts: by the run)
  InputArgs in;            // --layer 0 when not given, and explain's token bound
};

// Usage errors (exit 2): no --head, a --cell that is not I,J, a --format that is not text, markdown
// or json. Loads no model.
ExplainPlan resolve_explain(const ExplainArgs& args);

}  // namespace attnviz
