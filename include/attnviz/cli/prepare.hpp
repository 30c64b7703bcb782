// From input flags to a runnable forward pass: model, sequences, mask, options.
#pragma once

#include "attnviz/cli/run_args.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

struct PreparedRun {
  Model model;
  ForwardInputs inputs;
  ForwardOptions options;
  HeadSelection selection;  // --layer / --site / --head
};

// Loads the model and resolves inputs, mask and options; usage errors exit 2, bad files exit 1.
PreparedRun prepare_run(const InputArgs& in);

}  // namespace attnviz
