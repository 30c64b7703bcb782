// `attnviz align` in three steps: its flags (AlignArgs), resolved before a model loads
// (resolve_align), then run (align_command.cpp).
#pragma once

#include <optional>
#include <string>

#include "attnviz/analysis/alignment.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

struct AlignArgs {
  InputArgs in;
  std::string rows = "predicting";  // which decoder row aligns a target token
  std::optional<float> threshold;   // --threshold P: every link of weight ≥ P, not the argmax
  std::string gold;   // --gold FILE: a Pharaoh line per pair; every head ranked by AER
  std::string batch;  // --batch PAIRS.jsonl: {"source_text", "text"} per line
  std::string format = "text";
};

struct AlignPlan {
  InputArgs in;
  AlignRule rule;
  // predicting: target token j is aligned by the decoder row that predicts it (row j − 1, whose
  // input is the token before it; Garg et al. 2019); input: by its own row (row j, "shift-att").
  bool predicting = true;
  std::string gold;
  std::string batch;
  TableFormat format = TableFormat::text;
};

// Usage errors (exit 2): without --batch, a source or target given other than as text
// (--source-text / --source-text-file, --text / --text-file: words come from the text); with it,
// any input flag; --site other than cross, a --threshold outside
// (0, 1], --rows other than predicting or input, --format csv or markdown with no --gold table.
// Loads no model.
AlignPlan resolve_align(const AlignArgs& args);

}  // namespace attnviz
