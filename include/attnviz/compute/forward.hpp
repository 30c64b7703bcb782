// forward(model, inputs): runs the model and emits every attention map to a sink, in row blocks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnviz/compute/attention_block.hpp"
#include "attnviz/compute/embedding.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

struct ForwardInputs {
  Sequence target;                 // queries (and keys/values of self-attention)
  std::optional<Sequence> source;  // keys/values of cross-attention
  Mask mask;                       // over [n_target, n_keys]
};

struct ForwardOptions {
  std::optional<float> scale;  // override of 1/sqrt(d_k); 1 means "no scaling"
  int block_rows = 256;        // rows per emitted block
};

struct ForwardResult {
  Matrix hidden;                      // the output of the last layer, [n_target, d_out]
  std::vector<std::string> warnings;  // e.g. rows whose keys are all masked
};

// An "mha" model is one attention layer: self-attention over the target, or cross-attention
// (queries from the target, keys and values from the source) when a source is given.
ForwardResult forward(const Model& model, const ForwardInputs& inputs, const ForwardOptions& options,
                      AttentionSink* sink);

// "rows 0-3, 7" for warnings.
std::string format_row_list(const std::vector<int>& rows);

}  // namespace attnviz
