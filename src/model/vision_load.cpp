// A vision transformer's patch embedding, bound and checked against config.json.
#include "vision_load.hpp"

#include <fmt/format.h>

#include <cmath>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "derive_shapes.hpp"

namespace attnviz::detail {

namespace {

// The tensor of `role` as [rows, d_model] after dropping leading 1s (ViT's cls_token [1, 1, D],
// position_embeddings [1, T, D]; CLIP's class_embedding [D]); rows 0 when the file has none.
Matrix rows_of(const TensorSource& src, const Binder& b, const std::string& role, int d_model) {
  if (!b.present(role)) return Matrix(0, d_model);  // a role the family requires: an Error
  const auto name = b.name(role);
  const Tensor t = src.load(*name);
  std::vector<int64_t> shape = t.shape;
  while (shape.size() > 2 && shape.front() == 1) shape.erase(shape.begin());
  if (shape.size() == 1) shape.insert(shape.begin(), 1);
  if (shape.size() != 2 || shape[1] != d_model || shape[0] < 1) {
    throw Error(fmt::format(
        "{}: tensor '{}' ({}) has shape {}, expected [rows, {}] (d_model), "
        "optionally after leading 1s",
        src.description(), printable_text(*name), role, shape_string(t.shape), d_model));
  }
  Matrix m(shape[0], shape[1]);
  std::copy(t.data.begin(), t.data.end(), m.data());
  return m;
}

RowVector row_of(const TensorSource& src, const Binder& b, const std::string& role, int d_model) {
  const Matrix m = rows_of(src, b, role, d_model);
  if (m.rows() > 1) {
    throw Error(fmt::format("{}: {} has {} rows, expected one token's [{}]", src.description(),
                            b.tensor_text(role), m.rows(), d_model));
  }
  return m.rows() == 1 ? RowVector(m.row(0)) : RowVector();
}

}  // namespace

void load_patch_embedding(Model& model, const TensorSource& src, const Binder& b,
                          const ConfigSources& cfg, const Layout& layout) {
  Config& c = model.config;
  const int d = c.d_model;
  (void)b.present("embed.patch.weight");  // required by every vision layout
  const auto kernel = b.name("embed.patch.weight");
  if (!kernel)
    throw Error(fmt::format("{}: {}", src.description(), b.missing("embed.patch.weight", 0)));
  const Tensor w = src.load(*kernel);
  const auto& s = w.shape;
  if (s.size() != 4 || s[0] != d || s[2] != s[3] || s[1] < 1 || s[2] < 1) {
    throw Error(
        fmt::format("{}: tensor '{}' has shape {}, expected [{}, channels, patch, patch] "
                    "(d_model, then a square Conv2d kernel)",
                    src.description(), printable_text(*kernel), shape_string(s), d));
  }
  VisionConfig& v = c.vision;
  v.channels = static_cast<int>(s[1]);
  v.patch = static_cast<int>(s[2]);
  check_declared(cfg, {"num_channels"}, v.channels,
                 "channels, from " + b.tensor_text("embed.patch.weight"));
  check_declared(cfg, {"patch_size"}, v.patch,
                 "the patch side, from " + b.tensor_text("embed.patch.weight"));
  PatchEmbeddingWeights p;
  const int64_t flat = s[1] * s[2] * s[3];
  Matrix kernel_rows(d, flat);
  std::copy(w.data.begin(), w.data.end(), kernel_rows.data());
  p.patch.weight = WeightMatrix(std::move(kernel_rows));
  p.patch.bias = b.vector("embed.patch.bias", 0, d);
  p.cls = row_of(src, b, "embed.cls", d);
  p.distillation = row_of(src, b, "embed.distillation", d);
  p.registers = rows_of(src, b, "embed.registers", d);
  p.position = rows_of(src, b, "embed.patch_position", d);
  v.cls = p.cls.size() > 0;
  v.distillation = p.distillation.size() > 0;
  v.registers = static_cast<int>(p.registers.rows());
  v.resize_positions = layout.resize_positions;
  if (cfg.declared({"num_register_tokens"}) || v.registers > 0) {
    check_declared(cfg, {"num_register_tokens"}, v.registers,
                   v.registers ? "register tokens, from " + b.tensor_text("embed.registers")
                               : "register tokens: the file has no register_tokens tensor");
  }
  // The table: a row for each prefix token that takes a position, then grid² patches.
  const int positioned = (v.cls ? 1 : 0) + (v.distillation ? 1 : 0);
  const int64_t patches = p.position.rows() - positioned;
  v.grid = static_cast<int>(std::lround(std::sqrt(double(std::max<int64_t>(patches, 0)))));
  if (p.position.rows() == 0 || int64_t(v.grid) * v.grid != patches || v.grid < 1) {
    throw Error(
        fmt::format("{}: {} holds {} rows: expected {} for the prefix tokens, then a square "
                    "grid of patch positions",
                    src.description(),
                    p.position.rows() ? b.tensor_text("embed.patch_position")
                                      : b.missing("embed.patch_position", 0),
                    p.position.rows(), positioned));
  }
  // transformers' grid is image_size // patch (SigLIP so400m: 384 // 14 = 27).
  if (const auto size = cfg.integer({"image_size"}); size && *size / v.patch != v.grid) {
    throw cfg.declared({"image_size"})
        ->error(fmt::format("{}: expected {} // {} = {} patches per side, as {} holds them",
                            cfg.declared({"image_size"})->origin, *size, v.patch, v.grid,
                            b.tensor_text("embed.patch_position")));
  }
  if (auto ratio = cfg.number({"mlp_ratio"}, 0.0, 1e6)) {  // DINOv2: d_ff = int(D · mlp_ratio)
    const auto width = static_cast<int64_t>(double(d) * *ratio);
    if (width != c.d_ff) {
      throw cfg.declared({"mlp_ratio"})
          ->error(fmt::format("{}: expected d_ff / d_model = {} / {}, as the feed-forward weights "
                              "give it (int(d_model "
                              "× mlp_ratio) = {})",
                              cfg.declared({"mlp_ratio"})->origin, c.d_ff, d, width));
    }
  }
  c.max_positions = 0;  // the image's size sets the length; positions are checked as it is embedded
  model.weights.embed.patches = std::move(p);
}

}  // namespace attnviz::detail
