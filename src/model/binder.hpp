// Binding tensors to roles under a layout: name lookup, Conv1D orientation, fused q/k/v splits,
// shape checks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz::detail {

// convert: matrices are bound as float32 — F32 ones as views of the mapping when the Binder has an
// owner to keep it alive, the others converted. check_shapes: a matrix's shape and dtype are
// checked from the header and an empty [rows, 0] matrix stands in for it (its rows can still be
// split, as a fused q/k/v is), so load_model validates every layer with the code that binds it,
// converting nothing.
enum class BindMode { convert, check_shapes };

class Binder {
 public:
  // `mapping` (the TensorSource's owner), when given, lets F32 matrices be views of the file.
  Binder(const TensorSource& tensors, const Layout& layout, std::string prefix,
         BindMode mode = BindMode::convert, std::shared_ptr<const void> mapping = nullptr);

  // The file's tensor name for `role` at `layer`, when the layout has the role and the file the
  // tensor.
  std::optional<std::string> name(const std::string& role, int layer = 0) const;
  bool has(const std::string& role, int layer = 0) const { return name(role, layer).has_value(); }
  // has(), except that a role the layout requires (RolePattern::required) is an Error when absent.
  bool present(const std::string& role, int layer = 0) const;
  // The optional roles of `stack` (biases, q/k norms, …) must be in every layer or in none: a layer
  // without the norm or bias the others have is a damaged file, not a model to run without it.
  void check_layers_alike(const std::string& stack, int n_layers) const;
  // "missing tensor 'h.0.attn.c_attn.weight' (decoder.self.qkv.weight of layout gpt2)" for a role.
  std::string missing(const std::string& role, int layer) const;
  // "tensor 'blk.0.ffn_up.weight' of shape [48, 32]": the file's name of the tensor bound to `role`
  // and its shape in PyTorch's order, for messages that name the weights' side of a contradiction.
  std::string tensor_text(const std::string& role, int layer = 0) const;
  // Shape as nn.Linear's (a Conv1D's [in, out] read as [out, in]).
  std::vector<int64_t> shape(const std::string& role, int layer = 0) const;

  // nn.Linear's [rows, cols] weight in its stored orientation: a view of an F32 tensor (no copy),
  // else converted once into its own buffer.
  WeightMatrix weight(const std::string& role, int layer, int64_t rows, int64_t cols) const;
  RowVector vector(const std::string& role, int layer,
                   int64_t n) const;  // empty when absent (and optional)
  // A [rows, cols] table (token, position, token type) left in the file in its stored dtype
  // (`owner` keeps the file mapped); nullopt when absent. A table stored transposed is converted.
  std::optional<TokenTable> table(const std::string& role, int64_t rows, int64_t cols,
                                  std::shared_ptr<const void> owner) const;
  std::optional<LayerNormWeights> layer_norm(const std::string& role, int layer, int64_t d) const;
  std::optional<Linear> linear(const std::string& role, int layer, int64_t out, int64_t in) const;

  // q, k, v (fused or separate) and out of `module` ("encoder.self"), shapes from the config.
  AttentionWeights attention(const std::string& module, int layer, const Config& c) const;
  LayerWeights layer(const std::string& stack, int layer, const Config& c, bool cross) const;
  // The FFN of `module` ("decoder.ffn", or "decoder.ffn.experts" for the expert this Binder
  // names): plain, gated or with a fused gate/up; nullopt when the layer has no up weight.
  std::optional<FeedForwardWeights> feed_forward(const std::string& module, int layer,
                                                 const Config& c) const;
  // Expert e's FFN in `layer` of `stack` ("{expert}" in its patterns is e); every expert has one.
  FeedForwardWeights expert(const std::string& stack, int layer, int e, const Config& c) const;

  const std::string& prefix() const { return prefix_; }
  // This Binder with "{expert}" in the patterns naming expert e.
  Binder for_expert(int e) const {
    Binder b = *this;
    b.expert_ = e;
    return b;
  }
  // Converted weights go back to the pool of weight buffers when dropped, for the next layer to
  // reuse.
  void recycle_buffers(bool on) { recycle_ = on; }

 private:
  const RolePattern* pattern(const std::string& role, int layer) const;
  // The tensor's name after checking it exists with the shape [rows, cols] (stored transposed when
  // the layout says so).
  std::string checked_matrix(const std::string& role, int layer, int64_t rows, int64_t cols) const;
  const TensorSource& tensors_;
  const Layout& layout_;
  std::string prefix_;
  BindMode mode_;
  std::shared_ptr<const void> mapping_;
  bool recycle_ = false;
  int expert_ = 0;  // what "{expert}" in a pattern names
};

// A stack of a loaded model: every layer's shapes and dtypes checked now, each layer bound when
// forward asks for it (F32 viewed in the mapping, other dtypes converted). The layers read
// `tensors`, which the stack and the views keep alive.
StackWeights bind_stack(std::shared_ptr<const TensorSource> tensors, const Layout& layout,
                        const std::string& prefix, const std::string& stack, int n_layers,
                        const Config& c, bool cross);

// pattern with every "{layer}" (or `key`: "{expert}") replaced by the index.
std::string with_layer(const std::string& pattern, int layer, const std::string& key = "{layer}");
// pattern with "{layer}" and "{expert}" replaced: a tensor's name.
inline std::string with_indices(const std::string& pattern, int layer, int expert) {
  return with_layer(with_layer(pattern, expert, "{expert}"), layer);
}

// Number of layers of a stack: indices 0, 1, … while the stack's self-attention tensors exist.
int count_layers(const Binder& b, const std::string& stack);

}  // namespace attnviz::detail
