// Loading the translation tutorial's recurrent encoder-decoder (Layout::recurrent), apart from the
// transformer layers' path in load.cpp.
#pragma once

#include <memory>
#include <string>

#include "attnviz/model/model.hpp"
#include "binder.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// Binds the GRUs, the additive attention, both token tables and the output layer of `b`'s file
// into `model` (its name and folder set), each tensor's shape checked against the hidden size
// (the source table's width) and config.json's declared sizes; every tensor of the file must have
// a role. Config: encoder-decoder, recurrent, one layer per stack, one head, d_model the hidden
// size, vocab_size the target's.
// The transformer flags (--heads, --norm-first, --activation, --layer-norm-eps, --pe-base) are
// refused: the GRUs have nothing they would set.
void load_recurrent(Model& model, const std::shared_ptr<const TensorSource>& tensors,
                    const Binder& b, const ConfigSources& cfg, const Layout& layout,
                    const std::string& prefix, const ConfigOverrides& flags);

}  // namespace attnviz::detail
