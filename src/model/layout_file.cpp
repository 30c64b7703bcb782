// A user's layout mapping file: roles → tensor-name patterns for a checkpoint nobody anticipated.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/model/layout.hpp"

namespace attnviz {

namespace {

template <typename T>
T field(const nlohmann::json& j, const char* key, T fallback, const std::string& file) {
  if (!j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("{}: \"{}\" has the wrong type ({})", file, key, j.at(key).dump()));
  }
}

// Read as double and range-checked: get<float> of 1e300 is inf, and a negative eps is no epsilon.
// The value must lie in (above, below), or (above, below] when `closed`.
double in_range(const nlohmann::json& j, const char* key, double fallback, double above,
                double below, const std::string& file, bool closed = true) {
  const double v = field(j, key, fallback, file);
  if (!(v > above && (v < below || (closed && v == below)))) {
    throw Error(fmt::format("{}: \"{}\" = {:g}: expected a number in ({:g}, {:g}{}", file, key, v,
                            above, below, closed ? "]" : ")"));
  }
  return v;
}

// An enum field by its name; the error lists what it may be.
template <typename T>
T choice(const nlohmann::json& j, const char* key, T fallback,
         std::optional<T> (*parse)(const std::string&), const char* allowed,
         const std::string& file) {
  if (!j.contains(key)) return fallback;
  const auto v = parse(field<std::string>(j, key, "", file));
  if (!v) throw Error(fmt::format("{}: \"{}\" must be {}", file, key, allowed));
  return *v;
}

// The role names layout.hpp lists; a typo would otherwise surface later as an unrelated missing
// tensor.
bool known_role(const std::string& role) {
  static const std::regex k_roles(
      R"(embed\.(token|position|token_type|sinusoid|norm\.(weight|bias))|unembed\.(weight|bias)|)"
      R"((encoder|decoder)\.(self|cross)\.(q|k)_norm\.weight|)"
      R"((encoder|decoder)\.(self|cross)\.sinks|)"
      R"((encoder|decoder)\.embed\.(position|norm\.(weight|bias))|)"
      R"((encoder|decoder)\.ffn\.(router|experts\.(up|down|gate))\.(weight|bias)|)"
      R"((encoder|decoder)\.ffn\.experts\.gate_up\.weight|)"
      R"((encoder|decoder)\.(ffn\.gate_up|norm_(self|ffn)_post)\.weight|)"
      R"((encoder|decoder)\.((self|cross)\.(q|k|v|out|qkv)|ffn\.(up|down|gate)|norm_(self|cross|ffn)|final_norm)\.(weight|bias))");
  return std::regex_match(role, k_roles);
}

RolePattern role_pattern(const std::string& role, const nlohmann::json& v,
                         const std::string& file) {
  if (!known_role(role)) {
    throw Error(fmt::format(
        "{}: \"{}\" is not a role (see the roles in docs/models-and-formats.md: embed.token, "
        "decoder.self.qkv.weight, encoder.ffn.up.bias, …)",
        file, role));
  }
  // A user's roles are optional (bound when the file has the tensor), but alike in every layer.
  if (v.is_string()) return {role, v.get<std::string>(), false, false};
  if (v.is_object() && v.contains("pattern") && v["pattern"].is_string()) {
    return {role, v["pattern"].get<std::string>(), field(v, "transpose", false, file), false};
  }
  throw Error(fmt::format(
      "{}: role \"{}\" must map to a name pattern or {{\"pattern\": …, \"transpose\": …}}", file,
      role));
}

}  // namespace

Layout read_layout_file(const std::filesystem::path& path) {
  const std::string file = path.string();
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object() || !j.contains("roles") || !j["roles"].is_object()) {
    throw Error(fmt::format("{}: expected an object with a \"roles\" object", file));
  }
  // A field attnviz does not know would be a setting silently not applied (a typo, or a newer
  // trait): refused by name.
  static const std::set<std::string> k_fields{"name",
                                              "arch",
                                              "norm_first",
                                              "causal",
                                              "decoder_cross",
                                              "layer_norm_eps",
                                              "norm",
                                              "ffn",
                                              "activation",
                                              "positional",
                                              "sinusoid",
                                              "position_offset",
                                              "rope_theta",
                                              "partial_rotary_factor",
                                              "tied_embeddings",
                                              "norm_offset",
                                              "default_heads",
                                              "parallel_residual",
                                              "fused_qkv_per_head",
                                              "qk_norm",
                                              "normalise_top_k",
                                              "roles"};
  for (const auto& [key, value] : j.items()) {
    if (!k_fields.count(key)) {
      throw Error(fmt::format(
          "{}: \"{}\" is not a layout field (see docs/models-and-formats.md: name, arch, "
          "norm_first, …, roles)",
          file, printable_text(key)));
    }
  }
  Layout l;
  l.name = field<std::string>(j, "name", path.stem().string(), file);
  const auto arch = parse_arch(field<std::string>(j, "arch", "mha", file));
  if (!arch)
    throw Error(fmt::format("{}: \"arch\" must be mha, encoder, decoder or encoder-decoder", file));
  l.arch = *arch;
  l.norm_first = field(j, "norm_first", false, file);
  l.causal = field(j, "causal", l.arch == Arch::decoder, file);
  l.decoder_cross = field(j, "decoder_cross", false, file);
  l.layer_norm_eps = static_cast<float>(in_range(j, "layer_norm_eps", 1e-5, 0.0, 1.0, file, false));
  l.norm = choice(j, "norm", NormKind::layer_norm, parse_norm, "layer_norm or rms_norm", file);
  l.ffn = choice(j, "ffn", FeedForwardKind::plain, parse_feed_forward, "plain or gated", file);
  l.activation = choice(j, "activation", Activation::relu, parse_activation,
                        "relu, gelu, gelu_tanh, silu or quick_gelu", file);
  l.positional = choice(j, "positional", Positional::none, parse_positional,
                        "none, sinusoidal, learned or rotary", file);
  l.sinusoid = choice(j, "sinusoid", SinusoidLayout::interleaved, parse_sinusoid_layout,
                      "interleaved or halves", file);
  l.position_offset = field(j, "position_offset", 0, file);
  if (l.position_offset < 0 || l.position_offset > (1 << 20)) {
    throw Error(fmt::format("{}: \"position_offset\" = {}: expected an integer in [0, {}]", file,
                            l.position_offset, 1 << 20));
  }
  l.rope_theta = static_cast<float>(in_range(j, "rope_theta", 10000.0, 0.0, 1e30, file));
  l.partial_rotary_factor =
      static_cast<float>(in_range(j, "partial_rotary_factor", 1.0, 0.0, 1.0, file));
  l.tied_embeddings = field(j, "tied_embeddings", false, file);
  l.norm_offset = static_cast<float>(in_range(j, "norm_offset", 0.0, -1.0, 1.0, file));
  l.parallel_residual = field(j, "parallel_residual", false, file);
  l.parallel_residual_keys = {"parallel_residual"};  // config.json may switch it, as norm_first
  l.fused_qkv_per_head = field(j, "fused_qkv_per_head", false, file);
  l.qk_norm = choice(j, "qk_norm", QkNorm::per_head, parse_qk_norm, "per_head or whole", file);
  if (l.qk_norm == QkNorm::none)
    throw Error(fmt::format("{}: \"qk_norm\" must be per_head or whole", file));
  // A mixture of experts (when the roles map a router): its count and top-k come from config.json
  // (num_local_experts or num_experts, num_experts_per_tok), which then may set them.
  l.experts.normalise_default = field(j, "normalise_top_k", true, file);
  l.experts.normalise = {"norm_topk_prob"};
  // An integer, not 2.5 or 2^32 + 2 (get<int> would truncate both silently).
  if (j.contains("default_heads")) {
    const auto& v = j["default_heads"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 65536) {
      throw Error(fmt::format("{}: \"default_heads\" = {}: expected an integer in [0, 65536]", file,
                              v.dump()));
    }
    l.default_heads = v.get<int>();
  }
  for (const auto& [role, v] : j["roles"].items()) l.roles.push_back(role_pattern(role, v, file));
  bool experts = false;
  for (const auto& r : l.roles) {
    experts = experts || r.role.ends_with(".ffn.router.weight");
    if (r.role.find(".ffn.experts.") != std::string::npos &&
        r.pattern.find("{expert}") == std::string::npos) {
      throw Error(
          fmt::format("{}: role \"{}\" = \"{}\" names one tensor for every expert; put "
                      "\"{{expert}}\" where the expert's index goes",
                      file, r.role, printable_text(r.pattern)));
    }
  }
  if (experts) {  // the expert count is read, not refused
    std::erase_if(l.refused_keys, [&](const RefusedKey& k) {
      return std::find(l.experts.count.begin(), l.experts.count.end(), k.key) !=
             l.experts.count.end();
    });
  }
  l.detect = l.roles.empty() ? "" : l.roles.front().pattern;
  return l;
}

}  // namespace attnviz
