// Loading a model: open the tensors, choose the layout, derive the config, bind weights to roles.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <regex>

#include "attention_config.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/model.hpp"
#include "binder.hpp"
#include "choose_layout.hpp"
#include "config_sources.hpp"
#include "derive_shapes.hpp"
#include "encoder_decoder.hpp"
#include "gguf_config.hpp"
#include "load_checks.hpp"
#include "recurrent_load.hpp"
#include "vision_load.hpp"

namespace attnviz {

namespace fs = std::filesystem;
using detail::bind_logit_bias;
using detail::bind_relative_bias;
using detail::Binder;
using detail::check_declared;
using detail::check_declared_biases;
using detail::check_declared_sizes;
using detail::check_encoder_decoder;
using detail::check_every_tensor_bound;
using detail::check_model_traits;
using detail::check_per_head_qkv;
using detail::check_positions;
using detail::check_tied_copies;
using detail::ConfigSources;
using detail::derive_relative_buckets;
using detail::KeyValueRows;
using detail::width;

namespace {

// What titles call the model: a folder's name; a file's name without its extension, or its folder's
// name when the file's is the generic one of a checkpoint (model.safetensors, pytorch_model-…,
// model-00001-of-00002.safetensors, consolidated.safetensors).
std::string model_name_of(const std::filesystem::path& path) {
  if (path.filename().empty()) return path.parent_path().filename().string();
  if (std::filesystem::is_directory(path)) return path.filename().string();
  const std::string stem = path.stem().string();
  static const std::regex generic(R"((model|pytorch_model|consolidated)(-\d+-of-\d+)?)");
  const std::string folder = std::filesystem::absolute(path).parent_path().filename().string();
  if (std::regex_match(stem, generic) && !folder.empty()) return folder;
  return stem;
}

// Rotary positions: theta and the rotated share of each head (HF: int(head_dim ·
// partial_rotary_factor)).
void derive_rotary(Config& c, const Layout& layout, const ConfigSources& cfg) {
  c.rope_theta = static_cast<float>(
      cfg.number(layout.rope_theta_keys, 0.0, double(std::numeric_limits<float>::max()))
          .value_or(layout.rope_theta));
  if (c.positional != Positional::rotary) return;
  c.rope_scaling = read_rope_scaling(cfg);
  if (auto dim = cfg.agreed({"rotary_dim"})) {
    // GPT-J / CodeGen rotate interleaved pairs (rotate_every_two), not halves: other math.
    throw Error(
        fmt::format("rotary_dim = {}: GPT-J's interleaved rotary positions are not supported "
                    "(attnviz rotates halves, as Llama, GPT-NeoX and Qwen do)",
                    dim->dump()));
  }
  if (auto n =
          cfg.integer({"rope_dimension_count"})) {  // GGUF's rope.dimension_count: the count itself
    c.rotary_dim = *n;
    if (c.rotary_dim > c.d_k() || c.rotary_dim % 2 != 0) {
      throw Error(fmt::format("{}: expected an even number <= d_k = {}",
                              cfg.declared({"rope_dimension_count"})->origin, c.d_k()));
    }
    return;
  }
  // GPT-NeoX calls the share rotary_pct.
  const double factor =
      cfg.number(layout.rotary_share_keys, 0.0, 2.0).value_or(layout.partial_rotary_factor);
  if (factor > 1.0) {
    throw Error(fmt::format("partial_rotary_factor = {:g}: expected a number in (0, 1]", factor));
  }
  c.rotary_dim = static_cast<int>(c.d_k() * factor);
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) {
    throw Error(
        fmt::format("rotary positions rotate {} of d_k = {} dims per head (partial_rotary_factor "
                    "{:g}): expected an even number >= 2",
                    c.rotary_dim, c.d_k(), factor));
  }
  if (c.arch == Arch::mha || c.decoder_cross || c.arch == Arch::encoder_decoder) {
    // Keys of a source or lone module have no token index to rotate by; no family defines it.
    throw usage_error(
        fmt::format("rotary positions apply to the self-attention of transformer layers; "
                    "layout {} ({}) has {}",
                    c.layout, arch_name(c.arch),
                    c.arch == Arch::mha ? "a lone attention module" : "cross-attention"));
  }
}

void derive_hyperparameters(Config& c, const Layout& layout, const ConfigSources& cfg) {
  c.causal = cfg.boolean({"causal"}).value_or(layout.causal);
  c.norm_first = cfg.boolean({"norm_first"}).value_or(layout.norm_first);
  c.norm = layout.norm;
  c.ffn = layout.ffn;
  // (0, 1): a negative eps takes sqrt of a negative variance, 1e300 becomes inf as a float.
  c.layer_norm_eps = static_cast<float>(
      cfg.number({"layer_norm_eps", "layer_norm_epsilon", "rms_norm_eps"}, 0.0, 1.0)
          .value_or(layout.layer_norm_eps));
  c.parallel_residual =
      cfg.boolean(layout.parallel_residual_keys).value_or(layout.parallel_residual);
  c.activation = layout.activation;
  if (auto name = cfg.text(layout.activation_keys)) {
    std::optional<Activation> a;
    std::vector<std::string> names;  // the family's own, when it names them (T5)
    for (const auto& [value, activation] : layout.activation_values) {
      names.push_back(value);
      if (value == *name) a = activation;
    }
    if (layout.activation_values.empty()) a = parse_activation(*name);
    // --activation's value is the command line's fault (exit 2), config.json's the file's (exit 1).
    if (!a) {
      throw cfg.declared(layout.activation_keys)
          ->error(fmt::format("activation '{}': expected {}", printable_text(*name),
                              names.empty()
                                  ? "relu, gelu, gelu_tanh, silu or quick_gelu"
                                  : fmt::format("{} (the {} layout, as its tensors hold the "
                                                "feed-forward layers)",
                                                or_list(names), layout.name)));
    }
    c.activation = *a;
  }
  c.tied_embeddings = cfg.boolean({"tie_word_embeddings"}).value_or(layout.tied_embeddings);
  c.scale_embeddings = cfg.boolean({"scale_embeddings"}).value_or(layout.scale_embeddings);
  c.pe_base = static_cast<float>(
      cfg.number({"pe_base"}, 0.0, double(std::numeric_limits<float>::max())).value_or(10000.0));
  c.positional = layout.positional;
  c.sinusoid = layout.sinusoid;
  if (auto name = cfg.text({"positional"})) {
    auto p = parse_positional(*name);
    if (!p)
      throw Error(fmt::format(
          "positional '{}': expected none, sinusoidal, learned, rotary or relative", *name));
    c.positional = *p;
  }
  derive_rotary(c, layout, cfg);
  derive_relative_buckets(c, cfg);
  derive_attention_extras(c, cfg);
  if (layout.unscaled_scores) {
    c.attn_scale = 1.0f;
    c.attn_scale_source = fmt::format("the {} family, which does not scale q·kᵀ", layout.name);
  }
  if (layout.scale_tied_unembedding && c.tied_embeddings)
    c.unembed_input_scale = static_cast<float>(std::pow(double(c.d_model), -0.5));
  refuse_unsupported_fields(cfg, layout);
  if (c.max_positions == 0 && !layout.max_position_keys.empty()) {
    const std::vector<std::string>& keys = layout.max_position_keys;
    c.max_positions = cfg.integer(keys).value_or(0);
    if (c.max_positions > 0) c.max_positions_origin = cfg.declared(keys)->origin;
  }
}

// lm_head: the token table when tied, else its own [N, D] matrix when the file has one, left in the
// file like the token table; a tied one must equal the token table.
void bind_unembedding(Config& c, Weights& w, const Binder& b,
                      const std::shared_ptr<const TensorSource>& src) {
  if (!b.has("unembed.weight")) return;
  if (c.vocab_size == 0) c.vocab_size = width(b, "unembed.weight", 0);
  const auto shape = b.shape("unembed.weight");
  if (shape != std::vector<int64_t>{c.vocab_size, c.d_model}) {
    throw Error(fmt::format("tensor '{}' has shape {}, expected [{}, {}] (vocab, d_model)",
                            printable_text(*b.name("unembed.weight")), shape_string(shape),
                            c.vocab_size, c.d_model));
  }
  w.embed.unembed = b.table("unembed.weight", c.vocab_size, c.d_model, src);
  if (c.tied_embeddings && w.embed.token && !same_values(*w.embed.unembed, *w.embed.token)) {
    throw Error(fmt::format(
        "tie_word_embeddings = true, but '{}' differs from the token table '{}'",
        printable_text(*b.name("unembed.weight")), printable_text(*b.name("embed.token"))));
  }
}

// Gemma 2 caps its logits (final_logit_softcapping, null for none): they change only --logits.
void derive_logit_softcap(Config& c, const ConfigSources& cfg) {
  const auto cap = cfg.agreed({"final_logit_softcapping"});
  if (!cap || cap->is_null()) return;
  c.final_logit_softcap = static_cast<float>(
      *cfg.number({"final_logit_softcapping"}, 0.0, double(std::numeric_limits<float>::max())));
}

// q/k norms are a fact of the weights (Qwen3 has them, Llama not): the first layer says; what they
// normalise (each head, or the whole projection) is the layout's.
QkNorm qk_norm_of(const Binder& b, const Layout& layout, const std::string& stack) {
  const bool has = b.has(stack + ".self.q_norm.weight") || b.has(stack + ".self.k_norm.weight");
  return has ? layout.qk_norm : QkNorm::none;
}

}  // namespace

Model load_model(const fs::path& path, const ConfigOverrides& overrides) {
  // Shared by the model's layers and tables, which read the mapped files when they run.
  const auto tensors = std::make_shared<const TensorSource>(TensorSource::open(path));
  const TensorSource& src = *tensors;
  ConfigSources cfg(src, overrides);
  auto [layout, prefix] = detail::choose_layout(src, cfg, overrides);
  if (src.gguf()) layout.norm_offset = 0.0f;  // the converter stored Gemma's gains as 1 + w already
  detail::read_nested_part(cfg, layout);
  cfg.set_defaults(layout.config_defaults, layout.name);
  if (!layout.model_type.empty()) {
    // attnviz's own config keys (its torch layouts and layout files read them) switch a family's
    // math only from the command line: transformers' config class of the family ignores them, so
    // one in its config.json would make attnviz compute another model than transformers does.
    cfg.refuse_file_keys(
        {"norm_first", "causal", "positional", "scale_embeddings", "pe_base"},
        fmt::format("a key of attnviz's own layouts, which transformers' {} config does not read; "
                    "attnviz will not guess whether it was meant (remove it, or map the names "
                    "with --layout-file)",
                    layout.model_type));
  }
  cfg.add_aliases(layout.config_aliases);
  const Binder b(src, layout, prefix);

  Model model;
  model.name = model_name_of(path);
  model.dir = src.dir();
  Config& c = model.config;
  c.layout = layout.name;
  c.arch = layout.arch;
  if (layout.recurrent) {  // the translation tutorial's GRUs: no transformer layer to bind
    detail::load_recurrent(model, tensors, b, cfg, layout, prefix, overrides);
    return model;
  }
  c.position_offset = layout.position_offset;
  c.decoder_cross = layout.decoder_cross;
  const bool has_encoder = c.arch != Arch::decoder;
  const bool has_decoder = c.arch == Arch::decoder || c.arch == Arch::encoder_decoder;
  const std::string first = has_encoder ? "encoder" : "decoder";
  const KeyValueRows rows = detail::derive_widths(c, b, first + ".self", cfg);
  detail::check_self_widths(c, b, first + ".self");
  detail::derive_ffn_width(c, b, first + ".ffn");
  detail::derive_experts(c, b, layout, cfg, first);
  if (b.has("embed.token")) c.vocab_size = width(b, "embed.token", 0);
  if (layout.positions_after_pad) detail::derive_fairseq_positions(c, cfg);
  for (const char* role : {"embed.position", "encoder.embed.position", "decoder.embed.position"}) {
    if (!b.has(role)) continue;
    const int rows = width(b, role, 0) - c.position_offset;
    if (rows < 1) {
      throw Error(fmt::format("{} has no row past the family's offset of {} rows",
                              b.tensor_text(role), c.position_offset));
    }
    if (c.max_positions > 0 && c.max_positions <= rows) continue;
    c.max_positions = rows;
    c.max_positions_origin = fmt::format(
        "one row per position in the table {}{}", b.tensor_text(role),
        c.position_offset ? fmt::format(", after its first {}", c.position_offset) : "");
  }
  if (b.has("embed.token_type")) c.type_vocab_size = width(b, "embed.token_type", 0);
  detail::derive_heads(c, layout, cfg, b, first + ".self", rows);
  derive_hyperparameters(c, layout, cfg);
  check_declared_sizes(c, b, cfg, first, layout.experts.width);
  c.qk_norm = qk_norm_of(b, layout, first);  // before binding: it gives the gains' widths
  check_per_head_qkv(c, layout, b, first);

  Weights& w = model.weights;
  if (has_encoder) {
    c.n_encoder_layers = detail::count_layers(b, "encoder");
    w.encoder =
        detail::bind_stack(tensors, layout, prefix, "encoder", c.n_encoder_layers, c, false);
  }
  if (has_decoder) {
    c.n_decoder_layers = detail::count_layers(b, "decoder");
    w.decoder = detail::bind_stack(tensors, layout, prefix, "decoder", c.n_decoder_layers, c,
                                   c.decoder_cross);
  }
  check_every_tensor_bound(src, layout, prefix, std::max(c.n_encoder_layers, c.n_decoder_layers),
                           c.experts.n_experts);
  derive_sliding_layers(c, layout, cfg, has_decoder ? c.n_decoder_layers : c.n_encoder_layers);
  if (c.arch != Arch::encoder_decoder) {
    const int layers = has_encoder ? c.n_encoder_layers : c.n_decoder_layers;
    check_declared(cfg, {"n_layer", "num_hidden_layers", "num_layers", "n_layers"}, layers,
                   fmt::format("layers: the file's tensors stop after layer {}", layers - 1));
  } else {
    check_encoder_decoder(c, cfg);
    c.decoder_starts_with_last_label = layout.decoder_starts_with_last_label;
  }
  c.out_projection = b.has(first + ".self.out.weight");
  c.fused_qkv = b.has(first + ".self.qkv.weight");
  w.embed.token = b.table("embed.token", c.vocab_size, c.d_model, tensors);
  if (b.has("embed.position")) {  // rows read on use; position_offset rows before position 0
    w.embed.position = b.table("embed.position", width(b, "embed.position", 0), c.d_model, tensors);
  }
  w.embed.token_type = b.table("embed.token_type", c.type_vocab_size, c.d_model, tensors);
  w.embed.norm = b.layer_norm("embed.norm", 0, c.d_model);
  if (layout.vision) detail::load_patch_embedding(model, src, b, cfg, layout);
  model.notes = detail::unrun_notes(src, layout);
  for (auto [stack, weights] :
       {std::pair{"encoder", &w.encoder}, std::pair{"decoder", &w.decoder}}) {
    const std::string role = std::string(stack) + ".embed.position";
    if (b.present(role)) weights->position = b.table(role, width(b, role, 0), c.d_model, tensors);
    weights->embed_norm = b.layer_norm(std::string(stack) + ".embed.norm", 0, c.d_model);
  }
  bind_unembedding(c, w, b, tensors);
  bind_relative_bias(c, w, b);
  w.embed.unembed_bias = bind_logit_bias(c, b);
  if (auto name = b.name("embed.sinusoid")) {
    if (c.positional != Positional::sinusoidal) {
      throw Error(fmt::format("tensor '{}' is a stored sinusoidal table, but the positions are {}",
                              printable_text(*name), positional_name(c.positional)));
    }
    const auto& shape = src.info(*name).shape;
    if (shape.size() != 2 || shape[1] != c.d_model || shape[0] < 1) {
      throw Error(fmt::format("{}: tensor '{}' has shape {}, expected [positions, {}] (d_model)",
                              src.description(), printable_text(*name), shape_string(shape),
                              c.d_model));
    }
    w.embed.sinusoid = src.table(*name, tensors);
    w.embed.sinusoid_tensor = *name;
  }
  check_tied_copies(src, tensors, layout, prefix);
  derive_logit_softcap(c, cfg);
  check_positions(c, w, b);
  check_declared_biases(cfg, b, first);
  check_model_traits(c, b, first);
  if (src.gguf()) {
    detail::apply_gguf_facts(c, *src.gguf(), cfg);
    model.gguf = path;
  }
  return model;
}

}  // namespace attnviz
