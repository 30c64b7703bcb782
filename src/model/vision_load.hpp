// Binding a vision transformer's patch embedding (Layout::vision): the patch projection, the
// prefix tokens and the pretraining grid's positions, beside load.cpp's transformer layers.
#pragma once

#include <memory>

#include "attnviz/model/model.hpp"
#include "binder.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// Reads embed.patch.{weight,bias} ([D, C, P, P] as the Conv2d stores it, flattened to [D, C·P·P]),
// embed.cls, embed.distillation, embed.registers and embed.patch_position into
// model.weights.embed.patches, and sets Config::vision: P and C from the kernel (config.json's
// patch_size and num_channels must agree), the grid from the position table (image_size / P must
// agree), the prefix tokens from the tensors present (num_register_tokens must agree).
void load_patch_embedding(Model& model, const TensorSource& src, const Binder& b,
                          const ConfigSources& cfg, const Layout& layout);

}  // namespace attnviz::detail
