// ViT (ViTModel, ViTForImageClassification; Dosovitskiy et al. 2021) and DeiT (DeiTModel and its
// classifiers; Touvron et al. 2021: a distillation token after the class token), from transformers'
// modeling_vit.py and modeling_deit.py: pre-norm layers (layernorm_before / layernorm_after), GELU,
// LayerNorm eps 1e-12, a final layernorm.
#include <fmt/format.h>

#include "attnviz/model/init_writer.hpp"
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"
#include "vision_line.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;
using Json = nlohmann::ordered_json;

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

// ViT-B/16's image: 224 pixels a side in 16-pixel patches (a 14 × 14 grid).
constexpr int k_init_image = 224, k_init_patch = 16;

// ViTModel(add_pooling_layer=False)'s checkpoint as ViTPreTrainedModel._init_weights fills it:
// weights, the class token and the positions N(0, 0.02), biases 0, LayerNorms 1 and 0; ViT-B/16's
// patch grid, the layers' widths from the flags (--d-model 768 --heads 12 --layers 12: ViT-Base).
Json write_vit(InitWriter& w, const InitDims& n, const InitOptions&) {
  const int grid = k_init_image / k_init_patch;
  w.normal("embeddings.cls_token", {1, 1, n.d}, 0.02f);
  w.normal("embeddings.position_embeddings", {1, grid * grid + 1, n.d}, 0.02f);
  w.normal("embeddings.patch_embeddings.projection.weight", {n.d, 3, k_init_patch, k_init_patch},
           0.02f);
  w.zeros("embeddings.patch_embeddings.projection.bias", {n.d});
  for (int l = 0; l < n.layers; ++l) {
    const std::string p = fmt::format("encoder.layer.{}.", l);
    for (const char* part : {"query", "key", "value"})
      w.hf_linear(p + "attention.attention." + part, n.d, n.d);
    w.hf_linear(p + "attention.output.dense", n.d, n.d);
    w.layer_norm(p + "layernorm_before", n.d);
    w.hf_linear(p + "intermediate.dense", n.d, n.d_ff);
    w.hf_linear(p + "output.dense", n.d_ff, n.d);
    w.layer_norm(p + "layernorm_after", n.d);
  }
  w.layer_norm("layernorm", n.d);
  return Json{{"architectures", {"ViTModel"}},
              {"model_type", "vit"},
              {"hidden_size", n.d},
              {"num_hidden_layers", n.layers},
              {"num_attention_heads", n.heads},
              {"intermediate_size", n.d_ff},
              {"hidden_act", "gelu"},
              {"layer_norm_eps", 1e-12},
              {"image_size", k_init_image},
              {"patch_size", k_init_patch},
              {"num_channels", 3},
              {"qkv_bias", true},
              {"initializer_range", 0.02}};
}

// google/vit-base-patch16-224's processor: a bilinear resize to 224 × 224, rescaled, normalised
// with mean and std 0.5.
constexpr const char* k_vit_preprocessor = R"({
  "do_normalize": true,
  "do_rescale": true,
  "do_resize": true,
  "image_mean": [0.5, 0.5, 0.5],
  "image_processor_type": "ViTImageProcessor",
  "image_std": [0.5, 0.5, 0.5],
  "resample": 2,
  "rescale_factor": 0.00392156862745098,
  "size": {"height": 224, "width": 224}
}
)";

}  // namespace

Family vit_record() {
  return Family{.title = "ViT, DeiT",
                .layout = vit_line_layout("vit", "vit", false),
                .init = FamilyInit{.vocabulary = InitVocabulary::none,
                                   .write = write_vit,
                                   .preprocessor_config = k_vit_preprocessor}};
}

Family deit_record() {
  return Family{.title = "ViT, DeiT", .layout = vit_line_layout("deit", "deit", true)};
}

}  // namespace attnviz::detail
