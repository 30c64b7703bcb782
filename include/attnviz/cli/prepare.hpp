// From input flags to a runnable forward pass: model, sequences, mask, options.
#pragma once

#include <memory>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

struct PreparedRun {
  Model model;
  ForwardInputs inputs;
  ForwardOptions options;
  MapList maps;             // every map forward will make on these inputs
  HeadSelection selection;  // --layer / --site / --head, checked against `maps`: keeps at least one
  std::shared_ptr<const TextTools> tools;  // the tokenizer and vocabulary the inputs were read with
};

// Loads the model and resolves inputs, mask, options and the selection; usage errors exit 2, bad
// files exit 1. Nothing has been computed yet.
PreparedRun prepare_run(const InputArgs& in);

}  // namespace attnviz
