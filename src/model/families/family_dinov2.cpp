// DINOv2 (Dinov2Model, Dinov2ForImageClassification; Oquab et al. 2023) and DINOv2 with registers
// (Darcet et al. 2024: register tokens after the class token, without positions; its positions are
// resized with antialias=True), from
// transformers' modeling_dinov2.py and modeling_dinov2_with_registers.py: pre-norm layers with a
// layer scale on each sub-layer, LayerNorm eps 1e-6, and the patch positions resized bicubically
// to any image's grid.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"
#include "vision_line.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout dinov2_layout(const std::string& name, bool registers) {
  Layout l = vision_layout(name, name);
  l.layer_norm_eps = 1e-6f;
  l.resize_positions = registers ? PositionResize::bicubic_antialiased : PositionResize::bicubic;
  l.detect = "encoder.layer.{layer}.layer_scale1.lambda1";
  l.prefixes = {name + ".", "dinov2.", ""};
  add_vit_names(l);
  if (registers) add(l.roles, "embed.registers", "embeddings.register_tokens");
  const std::string p = "encoder.layer.{layer}.";
  norm(l.roles, "encoder.norm_self", p + "norm1");
  add(l.roles, "encoder.layer_scale_self", p + "layer_scale1.lambda1");
  linear(l.roles, "encoder.ffn.up", p + "mlp.fc1");
  linear(l.roles, "encoder.ffn.down", p + "mlp.fc2");
  norm(l.roles, "encoder.norm_ffn", p + "norm2");
  add(l.roles, "encoder.layer_scale_ffn", p + "layer_scale2.lambda1");
  norm(l.roles, "encoder.final_norm", "layernorm");
  require(l.roles,
          {"embed.patch.weight", "embed.cls", "embed.patch_position", "encoder.self.out.weight",
           "encoder.norm_self.weight", "encoder.layer_scale_self", "encoder.ffn.up.weight",
           "encoder.ffn.down.weight", "encoder.norm_ffn.weight", "encoder.layer_scale_ffn",
           "encoder.final_norm.weight"});
  if (registers) require(l.roles, {"embed.registers"});
  // As ViT's: used only for masked-image-modelling inputs (bool_masked_pos), which attnviz never
  // gives.
  l.buffers = {"embeddings.mask_token"};
  l.unrun = {{"classifier\\..*", "the classification head"}};
  l.config_defaults = {{"layer_norm_eps", 1e-6}, {"num_channels", 3}};
  // The giant models' SwiGLU MLP (weights_in / weights_out) is other math.
  l.refused_keys.push_back({"use_swiglu_ffn", "a SwiGLU feed-forward layer (DINOv2 giant)"});
  return l;
}

}  // namespace

Family dinov2_record() {
  return Family{.title = "DINOv2 (with registers)", .layout = dinov2_layout("dinov2", false)};
}

Family dinov2_registers_record() {
  return Family{.title = "DINOv2 (with registers)",
                .layout = dinov2_layout("dinov2_with_registers", true)};
}

}  // namespace attnviz::detail
