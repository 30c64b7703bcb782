// Greedy decoding, step by step over the whole sequence.
#include "attnviz/compute/generate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/compute/logits.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

Generated generate_greedy(const Model& model, const ForwardInputs& inputs,
                          const GenerateOptions& options) {
  const Config& c = model.config;
  if (!unembedding(model)) {
    throw usage_error(fmt::format("--generate: {} ({} layout) has no unembedding to predict with",
                                  model.name, c.layout));
  }
  if (inputs.target.ids.size() != static_cast<size_t>(inputs.target.x.rows())) {
    throw usage_error("--generate continues token ids: give the target as --text or --ids");
  }
  const Mask& m = inputs.target_mask;
  if (m.n_pad_keys > 0 || m.window > 0 || m.matrix) {
    throw usage_error(
        "--generate appends to the target: --pad, --window and --mask, which name its positions, "
        "do not apply");
  }
  Generated g{inputs.target.ids, 0, false};
  ForwardInputs step = inputs;
  while (g.n_generated < options.max_new_tokens) {
    if (c.max_positions > 0 && g.ids.size() >= static_cast<size_t>(c.max_positions)) {
      throw Error(
          fmt::format("--generate: the sequence reached {} tokens, the most {} accepts ({})",
                      g.ids.size(), model.name, c.max_positions_origin));
    }
    const Matrix hidden = forward(model, step, {}, nullptr).hidden;
    const auto top = model_predictions(model, hidden.bottomRows(1), 1);
    const int64_t next = top.at(0).at(0).id;
    g.ids.push_back(next);
    ++g.n_generated;
    if (std::find(options.eos.begin(), options.eos.end(), next) != options.eos.end()) {
      g.stopped_at_eos = true;
      break;
    }
    step.target = embed_ids(model, g.ids, std::vector<std::string>(g.ids.size()));
  }
  return g;
}

}  // namespace attnviz
