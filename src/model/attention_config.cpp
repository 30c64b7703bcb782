// Reading the attention settings of config.json under the names transformers writes them.
#include "attention_config.hpp"

#include <fmt/format.h>

#include <limits>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::json;

// The scaling settings as one object, from rope_scaling or from rope_parameters.<key>, and the file
// they are in. They are the file's content: a value attnviz cannot compute is an Error (exit 1),
// not usage.
struct Scaling {
  Json s = Json::object();
  std::string where;  // "m/config.json: " (or the GGUF file's metadata), for messages; "" when none
};

Scaling scaling_object(const ConfigSources& cfg) {
  // transformers 5 nests Gemma 3's settings per layer type: not read yet, so never half-read.
  for (const char* nested : {"full_attention", "sliding_attention"}) {
    if (const auto d = cfg.declared({std::string("rope_parameters.") + nested})) {
      throw d->error(fmt::format(
          "{}: rope_parameters.{}: rotary settings per layer type are not supported yet", d->where,
          nested));
    }
  }
  if (auto d = cfg.declared({"rope_scaling"}); d && !d->value.is_null()) {
    if (!d->value.is_object())
      throw d->error(fmt::format("{}: expected an object or null", d->origin));
    return {d->value, d->where + ": "};
  }
  Scaling out;
  for (const char* key : {"rope_type", "factor", "low_freq_factor", "high_freq_factor",
                          "original_max_position_embeddings"}) {
    if (auto d = cfg.declared({std::string("rope_parameters.") + key})) {
      out.s[key] = d->value;
      out.where = d->where + ": ";
    }
  }
  return out;
}

float positive(const Scaling& scaling, const char* key) {
  const Json& s = scaling.s;
  if (!s.contains(key) || s[key].is_null()) {
    throw Error(
        fmt::format("{}rope_scaling = {}: \"{}\" is missing", scaling.where, s.dump(), key));
  }
  const Json& v = s[key];
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e9) {
    throw Error(fmt::format("{}rope_scaling.{} = {}: expected a positive number", scaling.where,
                            key, v.dump()));
  }
  return v.get<float>();
}

}  // namespace

RopeScaling read_rope_scaling(const ConfigSources& cfg) {
  const Scaling scaling = scaling_object(cfg);
  const Json& s = scaling.s;
  // rope_scaling.get("rope_type", rope_scaling.get("type")): "type" only in configs before 4.43.
  std::string type = "default";
  for (const char* key : {"type", "rope_type"}) {  // the later one wins
    if (s.contains(key) && s[key].is_string()) type = s[key].get<std::string>();
  }
  // The type first: LongRoPE's short_factor / long_factor lists are its own keys, not the reason.
  if (type != "default" && type != "linear" && type != "llama3") {
    throw Error(fmt::format(
        "{}rope_scaling type '{}' is not implemented (attnviz implements default, linear and "
        "llama3)",
        scaling.where, printable_text(type)));
  }
  const std::set<std::string> known{"rope_type",        "type",
                                    "factor",           "low_freq_factor",
                                    "high_freq_factor", "original_max_position_embeddings"};
  for (const auto& [key, value] : s.items()) {
    if (!known.count(key)) {
      throw Error(fmt::format(
          "{}rope_scaling.{} = {}: not supported (attnviz reads rope types default, linear and "
          "llama3)",
          scaling.where, key, value.dump()));
    }
  }
  RopeScaling r;
  if (type == "default") return r;
  r.factor = positive(scaling, "factor");
  if (type == "linear") {
    r.kind = RopeScaling::Kind::linear;
    return r;
  }
  r.kind = RopeScaling::Kind::llama3;
  r.low_freq_factor = positive(scaling, "low_freq_factor");
  r.high_freq_factor = positive(scaling, "high_freq_factor");
  r.original_max_positions =
      static_cast<int>(positive(scaling, "original_max_position_embeddings"));
  if (!(r.high_freq_factor > r.low_freq_factor)) {
    throw Error(
        fmt::format("{}rope_scaling: high_freq_factor {:g} must exceed low_freq_factor {:g}",
                    scaling.where, r.high_freq_factor, r.low_freq_factor));
  }
  return r;
}

namespace {

// config.json's layer_types: one "full_attention" or "sliding_attention" per layer.
std::vector<bool> layer_types(const Json& types, int n_layers) {
  if (!types.is_array() || types.size() != size_t(n_layers)) {
    throw Error(
        fmt::format("layer_types = {}: expected a list of {} layer types", types.dump(), n_layers));
  }
  std::vector<bool> sliding;
  for (const auto& t : types) {
    if (t == "sliding_attention") {
      sliding.push_back(true);
    } else if (t == "full_attention") {
      sliding.push_back(false);
    } else {
      throw Error(fmt::format(
          "layer_types: '{}' is not supported (full_attention, sliding_attention)", t.dump()));
    }
  }
  return sliding;
}

std::vector<bool> family_rule(const Layout& layout, const ConfigSources& cfg, int n_layers) {
  std::vector<bool> sliding(size_t(n_layers), false);
  for (int i = 0; i < n_layers; ++i) {
    switch (layout.sliding) {
      case SlidingLayers::none:
        break;
      case SlidingLayers::all:
        sliding[i] = true;
        break;
      case SlidingLayers::from_max_window:  // Qwen2Config: i >= max_window_layers (default 28)
        sliding[i] = i >= cfg.integer({"max_window_layers"}, 0).value_or(28);
        break;
      case SlidingLayers::even:
        sliding[i] = i % 2 == 0;
        break;                      // Gemma 2: bool((i + 1) % 2)
      case SlidingLayers::pattern:  // Gemma 3: bool((i + 1) % sliding_window_pattern), default 6
        sliding[i] = (i + 1) % cfg.integer({"sliding_window_pattern"}).value_or(6) != 0;
        break;
    }
  }
  return sliding;
}

}  // namespace

void derive_sliding_layers(Config& c, const Layout& layout, const ConfigSources& cfg,
                           int n_layers) {
  const auto window = cfg.integer({"sliding_window"});
  // Qwen2/3 attend in windows only when use_sliding_window (their default: false); the others read
  // no such key (Mistral and Phi-3 window every layer whenever sliding_window is set).
  const bool qwen = layout.sliding == SlidingLayers::from_max_window;
  // (A layout file's family has no rule: there use_sliding_window false switches a window off.)
  const bool enabled = qwen ? cfg.boolean({"use_sliding_window"}).value_or(false)
                            : layout.sliding != SlidingLayers::none ||
                                  cfg.boolean({"use_sliding_window"}).value_or(true);
  // layer_types is read by the families that slide per layer (Qwen, Gemma); MistralModel ignores
  // it.
  const bool per_layer =
      qwen || layout.sliding == SlidingLayers::even || layout.sliding == SlidingLayers::pattern;
  std::vector<bool> sliding;
  if (auto types = cfg.agreed({"layer_types"}); types && per_layer) {
    sliding = layer_types(*types, n_layers);
  } else if (window && enabled) {
    if (layout.sliding == SlidingLayers::none) {
      throw Error(
          fmt::format("sliding_window = {}: layout {} has no sliding-window layers (give "
                      "layer_types in config.json to say which layers use it)",
                      *window, c.layout));
    }
    sliding = family_rule(layout, cfg, n_layers);
  }
  const bool any = std::find(sliding.begin(), sliding.end(), true) != sliding.end();
  if (!any || !enabled) return;
  if (!window)
    throw Error("layer_types has sliding_attention layers, but sliding_window is not set");
  c.sliding_window = *window;
  c.sliding_layers = std::move(sliding);
}

void derive_attention_extras(Config& c, const ConfigSources& cfg) {
  constexpr double k_max = std::numeric_limits<float>::max();
  if (auto cap = cfg.number({"attn_logit_softcapping"}, 0.0, k_max))
    c.attn_softcap = static_cast<float>(*cap);
  if (auto scalar = cfg.number({"query_pre_attn_scalar"}, 0.0, k_max)) {
    c.attn_scale =
        static_cast<float>(1.0 / std::sqrt(*scalar));  // Gemma: query_pre_attn_scalar ** -0.5
    c.attn_scale_source =
        fmt::format("{}, as 1/√{:g}", cfg.declared({"query_pre_attn_scalar"})->origin, *scalar);
  }
  if (auto theta = cfg.number({"rope_local_base_freq"}, 0.0, k_max))
    c.rope_local_theta = static_cast<float>(*theta);
}

void refuse_unsupported_fields(const ConfigSources& cfg, const Layout& layout) {
  for (const auto& f : layout.refused_keys) {
    const auto v = cfg.agreed({f.key});
    if (f.when_false) {
      if (!v || *v != false) continue;
    } else if (!v || v->is_null() || *v == false || *v == 0 || *v == 1 ||
               (v->is_array() && v->empty())) {
      continue;
    }
    throw Error(fmt::format("config {} = {}: {} is not supported", f.key, v->dump(),
                            f.what));  // a file's value
  }
}

}  // namespace attnviz::detail
