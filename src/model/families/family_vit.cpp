// ViT (ViTModel, ViTForImageClassification; Dosovitskiy et al. 2021) and DeiT (DeiTModel and its
// classifiers; Touvron et al. 2021: a distillation token after the class token), from transformers'
// modeling_vit.py and modeling_deit.py: pre-norm layers (layernorm_before / layernorm_after), GELU,
// LayerNorm eps 1e-12, a final layernorm.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"
#include "vision_line.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout vit_line_layout(const std::string& name, const std::string& prefix, bool distillation) {
  Layout l = vision_layout(name, name);
  l.layer_norm_eps = 1e-12f;
  l.detect = "encoder.layer.{layer}.attention.attention.query.weight";
  l.prefixes = {prefix + ".", ""};
  add_vit_names(l);
  if (distillation) add(l.roles, "embed.distillation", "embeddings.distillation_token");
  const std::string p = "encoder.layer.{layer}.";
  norm(l.roles, "encoder.norm_self", p + "layernorm_before");
  linear(l.roles, "encoder.ffn.up", p + "intermediate.dense");
  linear(l.roles, "encoder.ffn.down", p + "output.dense");
  norm(l.roles, "encoder.norm_ffn", p + "layernorm_after");
  norm(l.roles, "encoder.final_norm", "layernorm");
  require(l.roles,
          {"embed.patch.weight", "embed.cls", "embed.patch_position", "encoder.self.q.weight",
           "encoder.self.k.weight", "encoder.self.v.weight", "encoder.self.out.weight",
           "encoder.norm_self.weight", "encoder.ffn.up.weight", "encoder.ffn.down.weight",
           "encoder.norm_ffn.weight", "encoder.final_norm.weight"});
  if (distillation) require(l.roles, {"embed.distillation"});
  // The mask token replaces the patches a masked-image-modelling input masks (bool_masked_pos),
  // which no input of attnviz does: it changes nothing attnviz computes.
  l.buffers = {"embeddings.mask_token"};
  l.unrun = {{"(" + prefix + "\\.)?pooler\\..*", "the pooler (a dense layer and tanh on CLS)"},
             {"(cls_|distillation_)?classifier\\..*", "the classification head"}};
  l.config_defaults = {{"layer_norm_eps", 1e-12}, {"num_channels", 3}};
  return l;
}

}  // namespace

Family vit_record() {
  return Family{.title = "ViT, DeiT", .layout = vit_line_layout("vit", "vit", false)};
}

Family deit_record() {
  return Family{.title = "ViT, DeiT", .layout = vit_line_layout("deit", "deit", true)};
}

}  // namespace attnviz::detail
