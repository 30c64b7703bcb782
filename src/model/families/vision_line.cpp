// What every vision transformer's layout shares: pre-norm encoder layers over the patches, learned
// positions, every tensor bound (or named in a note when it belongs to a part attnviz does not
// run).
#include "vision_line.hpp"

#include "attnviz/model/layout_roles.hpp"

namespace attnviz::detail {

Layout vision_layout(const std::string& name, const std::string& model_type) {
  Layout l{.name = name,
           .arch = Arch::encoder,
           .norm_first = true,
           .activation = Activation::gelu,
           .positional = Positional::learned,
           .every_tensor_bound = true,
           .model_type = model_type,
           .needs_model_type = true,
           .vision = true};
  // The length is the image's patches; no config key limits it.
  l.max_position_keys = {};
  return l;
}

void add_vit_names(Layout& l) {
  using namespace roles;
  add(l.roles, "embed.patch.weight", "embeddings.patch_embeddings.projection.weight");
  add(l.roles, "embed.patch.bias", "embeddings.patch_embeddings.projection.bias");
  add(l.roles, "embed.cls", "embeddings.cls_token");
  add(l.roles, "embed.patch_position", "embeddings.position_embeddings");
  const std::string p = "encoder.layer.{layer}.attention.";
  linear(l.roles, "encoder.self.q", p + "attention.query");
  linear(l.roles, "encoder.self.k", p + "attention.key");
  linear(l.roles, "encoder.self.v", p + "attention.value");
  linear(l.roles, "encoder.self.out", p + "output.dense");
}

}  // namespace attnviz::detail
