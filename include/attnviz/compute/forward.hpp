// forward(model, inputs): runs the model and emits every attention map to a sink, in row blocks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"
#include "attnviz/compute/embedding.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

struct ForwardInputs {
  Sequence target;                 // queries (and keys/values of self-attention)
  std::optional<Sequence> source;  // the encoder input / memory / keys of cross-attention
  // The mask of every self-attention over the target (the model's own causality is added).
  Mask target_mask;
  // The mask over source keys: cross-attention uses it whole, the encoder's self-attention its padding.
  Mask source_mask;
};

struct ForwardOptions {
  std::optional<float> scale;  // override of 1/sqrt(d_k); 1 means "no scaling"
  int block_rows = 256;        // rows per emitted block
};

struct ForwardResult {
  Matrix hidden;                        // the last layer's output (after the final norm), [n_target, D]
  std::optional<Matrix> encoder_hidden; // encoder-decoder models: the encoder's output (the memory)
  std::vector<std::string> warnings;    // e.g. rows whose keys are all masked
};

// mha: one attention module — self-attention over the target, or cross-attention (queries from the
// target, keys/values from the source) when a source is given. encoder / decoder: a stack of layers
// over the target (decoder layers with cross-attention attend to the source). encoder_decoder: the
// encoder runs over the source, the decoder over the target. Maps are named layer{L}.{self|cross}
// for one stack and encoder.layer{L}.self / decoder.layer{L}.{self|cross} for two.
ForwardResult forward(const Model& model, const ForwardInputs& inputs, const ForwardOptions& options,
                      AttentionSink* sink);

// Every (stack, layer, site) forward emits for this model, in order (head 0 each), so a caller can
// check a selection before running.
std::vector<HeadId> attention_maps(const Config& config, bool has_source);

}  // namespace attnviz
