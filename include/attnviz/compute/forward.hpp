// forward(model, inputs): runs the model and emits every attention map to a sink, in row blocks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

struct ForwardInputs {
  Sequence target;                 // queries (and keys/values of self-attention)
  std::optional<Sequence> source;  // the encoder input / memory / keys of cross-attention
  // The mask of every self-attention over the target (the model's own causality is added).
  Mask target_mask;
  // The mask over source keys: cross-attention uses it whole, the encoder's self-attention its
  // padding.
  Mask source_mask;
};

struct ForwardOptions {
  std::optional<float> scale;  // override of 1/sqrt(d_k); 1 means "no scaling"
  int block_rows = 256;        // rows per emitted block
};

struct ForwardResult {
  Matrix hidden;  // the last layer's output (after the final norm), [n_target, D]
  std::optional<Matrix>
      encoder_hidden;                 // encoder-decoder models: the encoder's output (the memory)
  std::vector<std::string> warnings;  // e.g. rows whose keys are all masked
};

// One stack as forward runs it. plan_stacks is the one place the five stack shapes are spelled
// out: forward runs its list, attention_maps lists its maps.
struct StackPlan {
  std::string name{};    // map-name prefix: "" for one stack, else "encoder" / "decoder"
  bool decoder = false;  // its weights: model.weights.decoder, else model.weights.encoder
  int n_layers = 0;
  bool lone = false;            // a lone attention module: no residual, norm or FFN
  Site lone_site = Site::self;  // a lone module given a source attends across to it
  bool over_source = false;  // runs over the source (an encoder-decoder's encoder), not the target
  bool cross = false;        // its layers attend to the source, or to the encoder's output
  bool causal = false;       // its self-attention is causal whatever the input mask says
  // A GRU of the translation tutorial (Config::recurrent): no self-attention; the decoder's one
  // map is its additive cross-attention.
  bool recurrent = false;
};

// mha: one attention module — self-attention over the target, or cross-attention (queries from the
// target, keys/values from the source) when a source is given. encoder / decoder: a stack of layers
// over the target (decoder layers with cross-attention attend to the source). encoder_decoder: the
// encoder runs over the source, the decoder over the target; recurrent (the translation tutorial's
// GRUs), the same two stacks, whose one map is the decoder's cross-attention. A source the model
// cannot take, or a
// missing one it needs, is a usage error naming the model.
std::vector<StackPlan> plan_stacks(const Model& model, bool has_source);

// Every (stack, layer, site) forward emits for this model, in order (head 0 each), so a caller can
// check a selection before running. Maps are named layer{L}.{self|cross} for one stack and
// encoder.layer{L}.self / decoder.layer{L}.{self|cross} for two. Throws plan_stacks' usage errors.
std::vector<HeadId> attention_maps(const Model& model, bool has_source);

// Runs plan_stacks(model, inputs.source) and emits every map to the sink (which may be null).
ForwardResult forward(const Model& model, const ForwardInputs& inputs,
                      const ForwardOptions& options, AttentionSink* sink);

}  // namespace attnviz
