// A user's layout mapping file: roles → tensor-name patterns for a checkpoint nobody anticipated.
#include <fmt/format.h>

#include <regex>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
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

// The role names layout.hpp lists; a typo would otherwise surface later as an unrelated missing tensor.
bool known_role(const std::string& role) {
  static const std::regex k_roles(
      R"(embed\.(token|position|token_type|norm\.(weight|bias))|)"
      R"((encoder|decoder)\.((self|cross)\.(q|k|v|out|qkv)|ffn\.(up|down)|norm_(self|cross|ffn)|final_norm)\.(weight|bias))");
  return std::regex_match(role, k_roles);
}

RolePattern role_pattern(const std::string& role, const nlohmann::json& v, const std::string& file) {
  if (!known_role(role)) {
    throw Error(fmt::format("{}: \"{}\" is not a role (see the roles in README.md: embed.token, "
                            "decoder.self.qkv.weight, encoder.ffn.up.bias, …)", file, role));
  }
  if (v.is_string()) return {role, v.get<std::string>(), false};
  if (v.is_object() && v.contains("pattern") && v["pattern"].is_string()) {
    return {role, v["pattern"].get<std::string>(), field(v, "transpose", false, file)};
  }
  throw Error(fmt::format("{}: role \"{}\" must map to a name pattern or {{\"pattern\": …, \"transpose\": …}}",
                          file, role));
}

}  // namespace

Layout read_layout_file(const std::filesystem::path& path) {
  const std::string file = path.string();
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object() || !j.contains("roles") || !j["roles"].is_object()) {
    throw Error(fmt::format("{}: expected an object with a \"roles\" object", file));
  }
  Layout l;
  l.name = field<std::string>(j, "name", path.stem().string(), file);
  const auto arch = parse_arch(field<std::string>(j, "arch", "mha", file));
  if (!arch) throw Error(fmt::format("{}: \"arch\" must be mha, encoder, decoder or encoder-decoder", file));
  l.arch = *arch;
  l.norm_first = field(j, "norm_first", false, file);
  l.causal = field(j, "causal", l.arch == Arch::decoder, file);
  l.decoder_cross = field(j, "decoder_cross", false, file);
  // Read as double and range-checked: get<float> of 1e300 is inf, and a negative eps is no epsilon.
  const double eps = field(j, "layer_norm_eps", 1e-5, file);
  if (!(eps > 0.0 && eps < 1.0)) {
    throw Error(fmt::format("{}: \"layer_norm_eps\" = {:g}: expected a number in (0, 1)", file, eps));
  }
  l.layer_norm_eps = static_cast<float>(eps);
  const auto act = parse_activation(field<std::string>(j, "activation", "relu", file));
  if (!act) throw Error(fmt::format("{}: \"activation\" must be relu, gelu or gelu_tanh", file));
  l.activation = *act;
  const auto pos = parse_positional(field<std::string>(j, "positional", "none", file));
  if (!pos) throw Error(fmt::format("{}: \"positional\" must be none, sinusoidal or learned", file));
  l.positional = *pos;
  for (const auto& [role, v] : j["roles"].items()) l.roles.push_back(role_pattern(role, v, file));
  l.detect = l.roles.empty() ? "" : l.roles.front().pattern;
  return l;
}

}  // namespace attnviz
