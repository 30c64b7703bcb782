// The vision towers of CLIP (CLIPVisionModel, model_type clip_vision_model; Radford et al. 2021)
// and SigLIP (SiglipVisionModel, siglip_vision_model; Zhai et al. 2023), from transformers'
// modeling_clip.py and modeling_siglip.py. CLIP: a class embedding, no patch bias, pre_layrnorm
// on the embeddings, quick GELU, LayerNorm eps 1e-5; its last_hidden_state is the last layer's
// output (post_layernorm normalises the pooled CLS only). SigLIP: no class token, a patch bias,
// GELU (tanh), eps 1e-6, post_layernorm on the last hidden state, an attention-pooling head.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"
#include "vision_line.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout tower_layout(const std::string& name, const std::string& model_type) {
  Layout l = vision_layout(name, model_type);
  l.detect = "encoder.layers.{layer}.self_attn.q_proj.weight";
  l.prefixes = {"vision_model.", ""};
  add(l.roles, "embed.patch.weight", "embeddings.patch_embedding.weight");
  add(l.roles, "embed.patch_position", "embeddings.position_embedding.weight");
  const std::string p = "encoder.layers.{layer}.";
  linear(l.roles, "encoder.self.q", p + "self_attn.q_proj");
  linear(l.roles, "encoder.self.k", p + "self_attn.k_proj");
  linear(l.roles, "encoder.self.v", p + "self_attn.v_proj");
  linear(l.roles, "encoder.self.out", p + "self_attn.out_proj");
  norm(l.roles, "encoder.norm_self", p + "layer_norm1");
  linear(l.roles, "encoder.ffn.up", p + "mlp.fc1");
  linear(l.roles, "encoder.ffn.down", p + "mlp.fc2");
  norm(l.roles, "encoder.norm_ffn", p + "layer_norm2");
  // position_ids: the arange buffer older saves hold.
  l.buffers = {"embeddings.position_ids"};
  return l;
}

// CLIPVisionConfig's and SiglipVisionConfig's defaults: the same shape (ViT-B's) but the patch and
// the norms' eps; the shape's only for a whole folder's vision_config.
std::vector<std::pair<std::string, double>> tower_defaults(double eps, int patch) {
  return {{"layer_norm_eps", eps},
          {"num_channels", 3},
          {"vision_config.hidden_size", 768},
          {"vision_config.intermediate_size", 3072},
          {"vision_config.num_hidden_layers", 12},
          {"vision_config.num_attention_heads", 12},
          {"vision_config.image_size", 224},
          {"vision_config.patch_size", patch}};
}

}  // namespace

Family clip_vision_record() {
  Layout l = tower_layout("clip_vision", "clip_vision_model");
  l.activation = Activation::quick_gelu;
  add(l.roles, "embed.cls", "embeddings.class_embedding");
  norm(l.roles, "embed.norm", "pre_layrnorm");
  require(l.roles, {"embed.patch.weight", "embed.cls", "embed.patch_position", "embed.norm.weight",
                    "encoder.self.q.weight", "encoder.self.out.weight", "encoder.norm_self.weight",
                    "encoder.ffn.up.weight", "encoder.norm_ffn.weight"});
  l.unrun = {{"vision_model\\.post_layernorm\\..*|post_layernorm\\..*",
              "post_layernorm, which normalises the pooled CLS output only"},
             {"visual_projection\\..*", "the projection into the joint image-text space"},
             {"text_model\\..*", "the text tower"},
             {"text_projection\\..*|logit_scale", "the text projection and the logit scale"}};
  // CLIPConfig: the tower's keys under vision_config; an older save's vision_config_dict wins.
  l.nested_in = {{"clip", "vision_config", "vision_config_dict"}};
  l.config_defaults = tower_defaults(1e-5, 32);
  return Family{.title = "CLIP and SigLIP vision towers", .layout = l};
}

Family siglip_vision_record() {
  Layout l = tower_layout("siglip_vision", "siglip_vision_model");
  l.activation = Activation::gelu_tanh;
  l.layer_norm_eps = 1e-6f;
  add(l.roles, "embed.patch.bias", "embeddings.patch_embedding.bias");
  norm(l.roles, "encoder.final_norm", "post_layernorm");
  require(l.roles, {"embed.patch.weight", "embed.patch_position", "encoder.self.q.weight",
                    "encoder.self.out.weight", "encoder.norm_self.weight", "encoder.ffn.up.weight",
                    "encoder.norm_ffn.weight", "encoder.final_norm.weight"});
  l.unrun = {{"(vision_model\\.)?head\\..*", "the attention-pooling head"},
             {"text_model\\..*", "the text tower"},
             {"logit_scale|logit_bias", "the logit scale and bias"}};
  // SiglipConfig: the tower's keys under vision_config (google/siglip-base-patch16-224 gives only
  // the ones that differ from SiglipVisionConfig's defaults).
  l.nested_in = {{"siglip", "vision_config"}};
  l.config_defaults = tower_defaults(1e-6, 16);
  return Family{.title = "CLIP and SigLIP vision towers", .layout = l};
}

}  // namespace attnviz::detail
