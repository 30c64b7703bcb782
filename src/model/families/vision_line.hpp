// The vision transformers' shared parts: a layout's common traits and its patch-embedding roles.
#pragma once

#include <string>

#include "attnviz/model/layout.hpp"

namespace attnviz::detail {

// An encoder of pre-norm layers over an image's patches (Layout::vision), every tensor bound.
Layout vision_layout(const std::string& name, const std::string& model_type);

// ViT's names (transformers' ViTEmbeddings and ViTAttention), which DeiT and DINOv2 keep: the patch
// projection, the class token, the positions, and each layer's query, key, value and output.
void add_vit_names(Layout& l);

}  // namespace attnviz::detail
