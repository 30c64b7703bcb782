// What load_model checks between a file's weights, its config and its layout: each contradiction
// is an Error naming both sides, never a setting silently dropped.
#pragma once

#include <memory>
#include <string>

#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "attnviz/model/weights.hpp"
#include "binder.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// The sizes config.json declares must be the weights' (a vocab_size of 2^31 beside a 48-row token
// table is another model's config): a contradiction names the key and its file, and the tensor.
void check_declared_sizes(const Config& c, const Binder& b, const ConfigSources& cfg,
                          const std::string& first, const std::vector<std::string>& expert_width);

// Learned positions are a table of the weights, and a table means learned positions: a table next
// to rotary or sinusoidal positions would be dropped, learned positions without one never added.
void check_positions(const Config& c, const Weights& w, const Binder& b);

// A role's tied copies (its other patterns, Marian's model.encoder.embed_tokens beside
// model.shared) must hold the values of the tensor bound, or one of them would be silently unused.
void check_tied_copies(const TensorSource& src, const std::shared_ptr<const TensorSource>& owner,
                       const Layout& layout, const std::string& prefix);

// What the weights hold that the layout's traits must agree with (a gate in a plain FFN would be
// silently skipped; q/k norms run only inside transformer layers).
void check_model_traits(const Config& c, const Binder& b, const std::string& stack);

// q/k/v rows grouped per head ([heads, 3, d_k]) come in threes of one width: a model whose
// key/value heads are fewer or narrower has no such layout.
void check_per_head_qkv(const Config& c, const Layout& layout, const Binder& b,
                        const std::string& stack);

// config.json's attention_bias / mlp_bias (Llama's) must be what the weights hold: a bias the
// config declares but the file lacks (or the reverse) means the file and its config do not belong
// together.
void check_declared_biases(const ConfigSources& cfg, const Binder& b, const std::string& stack);

// A layout that must bind every tensor: the names no role of any layer reads are refused.
void check_every_tensor_bound(const TensorSource& src, const Layout& layout,
                              const std::string& prefix, int n_layers, int n_experts);

// The notes naming the tensors of Layout::unrun parts the file holds ("not run: the classification
// head (classifier.weight, classifier.bias)"), one per part.
std::vector<std::string> unrun_notes(const TensorSource& src, const Layout& layout);
// Whether `name` belongs to one of the layout's unrun parts.
bool in_unrun_part(const Layout& layout, const std::string& name);

}  // namespace attnviz::detail
