// From input flags to a runnable forward pass: model, sequences, mask, options.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

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
  // With --generate: the target's tokens before the generated ones (else the target's length).
  int n_prompt = 0;
  // A vision model's input as it read it ([3, H, W]: --pixels, or --image processed), for --save.
  std::optional<Tensor> pixel_values;
  std::optional<RgbImage> picture;  // what the pixels show (overlays), and how it was made
  std::string picture_note;
};

// Loads the model and resolves inputs, mask, options and the selection; usage errors exit 2, bad
// files exit 1. Nothing has been computed yet. The notes on how inputs were embedded go to stderr.
PreparedRun prepare_run(const InputArgs& in);

// prepare_run in two steps, for a batch (one model, many inputs): the model, its maps, the
// selection and the text tools (read as `tokenizer_use` says, else as the flags need); then the
// inputs, masks and options of one input, returning its notes instead of printing them.
PreparedRun prepare_model(const InputArgs& in,
                          std::optional<TokenizerUse> tokenizer_use = std::nullopt);
std::vector<std::string> prepare_inputs(PreparedRun& run, const InputArgs& in);

}  // namespace attnviz
