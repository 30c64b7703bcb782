// `attnviz rollout`: the rollout collector (analysis/rollout.hpp) wired to run's outputs, each
// layer's rollout handed on as a map of its own.
#pragma once

#include <memory>

#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

// A sink taking the model's maps; after each self-attention layer it sends `outputs` the rollout so
// far as the map "rollout.layer{L}.self" (under --flow the attention flow, "flow.layer{L}.self"; an
// encoder-decoder's stacks: "encoder.rollout…", "decoder.rollout…"), one head, kind "rollout: …" or
// "attention flow: …", in blocks of the run's block rows; masked only by causality (a product of
// layers spreads past windows, and the identity keeps padding tokens).
std::unique_ptr<AttentionSink> rollout_into(AttentionSink& outputs, const RunArgs& args,
                                            const PreparedRun& run);

// The longest input rollout takes (RolloutOptions' bounds: its N × N matrices, or under --flow its
// L·N⁴ steps), refused before the model runs.
TokenBound rollout_bound(const RunArgs& args);

// What the outputs select among rollout maps: --layer and --site as given; --head chose the head
// rolled out, so every rollout map (head 0) is shown.
HeadSelection rollout_selection(const HeadSelection& selection);

}  // namespace attnviz
