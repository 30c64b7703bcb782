// Greedy decoding: the model's own continuation of a target, one argmax token at a time, for
// generation and for translation (an encoder-decoder's decoder over its source).
#pragma once

#include <cstdint>
#include <vector>

#include "attnviz/compute/forward.hpp"

namespace attnviz {

struct GenerateOptions {
  int max_new_tokens = 0;    // at most this many tokens are appended
  std::vector<int64_t> eos;  // a token among these ends the generation (and is kept)
};

struct Generated {
  std::vector<int64_t> ids;  // the prompt's ids, then the generated ones
  int n_generated = 0;
  bool stopped_at_eos = false;
};

// Appends argmax_v logits(v) at the last position (ties: the lower id, as torch.argmax), the logits
// as --logits computes them (lm_head, its bias, the soft-cap), until an EOS token or
// max_new_tokens. `inputs.target` must hold ids (a text or --ids); its mask may not pad or window
// the target (usage Error). Each step runs forward over the whole sequence so far (no key/value
// cache: the maps of the final sequence, which the caller runs, are those a cached run computes, as
// attention is causal). A model without an unembedding, or a sequence reaching max_positions, is an
// Error naming it.
Generated generate_greedy(const Model& model, const ForwardInputs& inputs,
                          const GenerateOptions& options);

}  // namespace attnviz
