// Reading hyperparameters from metadata, config.json and flags, and catching contradictions.
#include "config_sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnviz/core/error.hpp"
#include "attnviz/io/json.hpp"
#include "gguf_config.hpp"

namespace attnviz::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_flags = "the command line";  // ConfigSource::where of the flags

// safetensors metadata values are strings: "4" means 4, "true" true, "1e-05" 1e-05.
nlohmann::json metadata_value(const std::string& text) {
  // Too deep for nlohmann's recursive dump(): keep it as the text it is, like any object or array.
  if (find_json_too_deep(text) != std::string::npos) return nlohmann::json(text);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() || j.is_object() || j.is_array() ? nlohmann::json(text) : j;
}

bool same(const nlohmann::json& a, const nlohmann::json& b);

ConfigSource config_json(const fs::path& dir) {
  const fs::path file = dir / "config.json";
  ConfigSource s{file.string(), {}, {}};
  if (!fs::exists(file)) return s;
  const nlohmann::json j = read_json_file(file);
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", file.string()));
  for (const auto& [key, value] : j.items()) s.values[key] = value;
  // transformers >= 5 nests the rotary settings: rope_parameters.{rope_theta, rope_type, …}, read
  // as "rope_parameters.<key>"; a value also given at the top level must be the same.
  if (const auto it = j.find("rope_parameters"); it != j.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      s.values["rope_parameters." + key] = value;
      if (const auto top = j.find(key); top != j.end() && !same(*top, value)) {
        throw Error(fmt::format("{}: {} = {} but rope_parameters.{} = {}", file.string(), key,
                                top->dump(), key, value.dump()));
      }
    }
  }
  return s;
}

ConfigSource flag_source(const ConfigOverrides& f) {
  ConfigSource s{std::string(k_flags), {}, {}};
  if (f.n_heads) s.values["n_heads"] = *f.n_heads;
  if (f.norm_first) s.values["norm_first"] = *f.norm_first;
  if (f.activation) s.values["activation"] = *f.activation;
  if (f.layer_norm_eps) s.values["layer_norm_eps"] = *f.layer_norm_eps;
  if (f.pe_base) s.values["pe_base"] = *f.pe_base;
  return s;
}

bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {  // 1e-5 written as float32 vs float64
    const double x = a.get<double>(), y = b.get<double>();
    return x == y || std::abs(x - y) <= 1e-6 * std::max(std::abs(x), std::abs(y));
  }
  return a == b;
}

// "gelu_new" (HF) and "gelu_tanh" (--activation) name one function: compare canonical names.
void canonical_activations(ConfigSource& s) {
  for (const char* key : {"activation", "activation_function", "hidden_act", "hidden_activation"}) {
    auto it = s.values.find(key);
    if (it == s.values.end() || !it->second.is_string()) continue;
    if (auto a = parse_activation(it->second.get<std::string>())) it->second = activation_name(*a);
  }
}

}  // namespace

ConfigSources::ConfigSources(const TensorSource& tensors, const ConfigOverrides& flags) {
  if (tensors.gguf()) {  // self-contained: a config.json beside it may be another model's
    sources_ = {gguf_config_source(*tensors.gguf()), flag_source(flags)};
    for (auto& s : sources_) canonical_activations(s);
    return;
  }
  ConfigSource meta{tensors.description() + " __metadata__", {}, {}};
  for (const auto& [key, text] : tensors.metadata()) meta.values[key] = metadata_value(text);
  sources_ = {meta, config_json(tensors.dir()), flag_source(flags)};
  for (auto& s : sources_) canonical_activations(s);
}

void ConfigSources::set_defaults(const std::vector<std::pair<std::string, double>>& defaults,
                                 const std::string& family) {
  defaults_ = ConfigSource{fmt::format("the defaults of {}'s config class", family), {}, {}};
  for (const auto& [key, value] : defaults) {  // 4096, not 4096.0, for the keys read as integers
    const bool whole = value == std::floor(value) && std::abs(value) < 1e15;
    defaults_.values[key] =
        whole ? nlohmann::json(static_cast<int64_t>(value)) : nlohmann::json(value);
  }
}

void ConfigSources::add_aliases(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& aliases) {
  for (auto& s : sources_) {
    for (const auto& [key, names] : aliases) {
      for (const auto& alias : names) {
        const auto it = s.values.find(alias);
        if (it == s.values.end() || it->second.is_null()) continue;
        const auto have = s.values.find(key);
        if (have == s.values.end() || have->second.is_null()) {
          s.values[key] = it->second;
          s.names[key] = s.names.count(alias) ? s.names[alias] : alias;
          continue;
        }
        if (!same(have->second, it->second)) {
          const auto named = s.names.find(key);
          throw Error(
              fmt::format("{}: {} = {} contradicts {} = {}: attnviz runs one value for both",
                          s.where, alias, it->second.dump(),
                          named == s.names.end() ? key : named->second, have->second.dump()));
        }
      }
    }
  }
}

std::optional<ConfigSources::Found> ConfigSources::find(
    const std::vector<std::string>& keys) const {
  std::optional<Found> found;
  bool null = false;  // a key set to null: "none", so no family default replaces it
  for (const auto& s : sources_) {
    for (const auto& key : keys) {
      auto it = s.values.find(key);
      null |= it != s.values.end() && it->second.is_null();
      if (it == s.values.end() || it->second.is_null()) continue;
      const auto named = s.names.find(key);
      const std::string name = named == s.names.end() ? key : named->second;
      if (found && !same(found->value, it->second)) {
        // Two files that disagree are the files' fault (exit 1); a flag against a file, the command
        // line's.
        const std::string msg =
            fmt::format("{} = {} in {} contradicts {} = {} in {}", name, it->second.dump(), s.where,
                        found->name, found->value.dump(), found->where);
        throw s.where == k_flags || found->where == k_flags ? usage_error(msg) : Error(msg);
      }
      if (!found) found = Found{it->second, s.where, key, name};
    }
  }
  if (!found && !null) {  // transformers' config class fills what config.json leaves out
    for (const auto& key : keys) {
      if (auto it = defaults_.values.find(key); it != defaults_.values.end()) {
        return Found{it->second, defaults_.where, key, key};
      }
    }
  }
  return found;
}

// "<where>: <key> = <value>: expected <range>"; a usage error when the value came from a flag.
Error ConfigSources::out_of_range(const Found& f, const std::string& range) {
  const std::string msg =
      fmt::format("{}: {} = {}: expected {}", f.where, f.name, f.value.dump(), range);
  return f.where == k_flags ? usage_error(msg) : Error(msg);
}

std::optional<nlohmann::json> ConfigSources::agreed(const std::vector<std::string>& keys) const {
  auto f = find(keys);
  return f ? std::optional<nlohmann::json>(f->value) : std::nullopt;
}

// Read as 64-bit (get<int> would turn 4294967298 into 2), then checked against int's range.
std::optional<int> ConfigSources::integer(const std::vector<std::string>& keys, int min) const {
  auto f = find(keys);
  if (!f) return std::nullopt;
  const nlohmann::json& v = f->value;
  constexpr int64_t k_max = std::numeric_limits<int>::max();
  bool fits = false;
  if (v.is_number_unsigned())
    fits = v.get<uint64_t>() <= uint64_t(k_max) && int64_t(v.get<uint64_t>()) >= min;
  else if (v.is_number_integer())
    fits = v.get<int64_t>() >= min && v.get<int64_t>() <= k_max;
  if (!fits) {
    throw out_of_range(*f,
                       fmt::format("an integer in [{}, {}]", min, std::numeric_limits<int>::max()));
  }
  return static_cast<int>(v.get<int64_t>());
}

std::optional<double> ConfigSources::number(const std::vector<std::string>& keys, double above,
                                            double below) const {
  auto f = find(keys);
  if (!f) return std::nullopt;
  const nlohmann::json& v = f->value;
  if (!v.is_number() || !(v.get<double>() > above && v.get<double>() < below)) {  // NaN fails too
    throw out_of_range(*f, fmt::format("a number in ({:g}, {:g})", above, below));
  }
  return v.get<double>();
}

std::optional<bool> ConfigSources::boolean(const std::vector<std::string>& keys) const {
  auto v = agreed(keys);
  if (!v) return std::nullopt;
  if (!v->is_boolean())
    throw Error(fmt::format("{}: expected true or false, got {}", keys[0], v->dump()));
  return v->get<bool>();
}

std::optional<std::string> ConfigSources::text(const std::vector<std::string>& keys) const {
  auto v = agreed(keys);
  if (!v) return std::nullopt;
  if (!v->is_string())
    throw Error(fmt::format("{}: expected a string, got {}", keys[0], v->dump()));
  return v->get<std::string>();
}

std::optional<Declared> ConfigSources::declared(const std::vector<std::string>& keys) const {
  auto f = find(keys);
  if (!f) return std::nullopt;
  return Declared{f->value, fmt::format("{}: {} = {}", f->where, f->name, f->value.dump()),
                  f->where};
}

Error Declared::error(const std::string& message) const {
  return where == k_flags ? usage_error(message) : Error(message);
}

void ConfigSources::descend(const NestedConfig& n, const std::string& part_model_type,
                            const std::vector<std::string>& class_keys,
                            const std::vector<std::pair<std::string, double>>& part_defaults) {
  for (auto& s : sources_) {
    if (fs::path(s.where).filename() != "config.json") continue;
    const auto object = [&](const std::string& key) -> const nlohmann::json* {
      const auto it = s.values.find(key);
      if (it == s.values.end() || it->second.is_null()) return nullptr;
      if (!it->second.is_object()) {
        throw Error(fmt::format("{}: \"{}\" = {}: expected an object, the config of the {} part",
                                s.where, key, it->second.dump(), part_model_type));
      }
      return &it->second;
    };
    ConfigSource part{s.where, {}, {}};
    if (const auto* section = object(n.section)) {
      for (const auto& [key, value] : section->items()) {
        part.values[key] = value;
        part.names[key] = n.section + "." + key;
      }
    }
    if (const auto* legacy = n.legacy_section.empty() ? nullptr : object(n.legacy_section)) {
      for (const auto& key : class_keys) {
        if (!legacy->contains(key)) part.values.erase(key);  // the class default stands
      }
      // The class's to_dict() names its own model_type, whatever the section said.
      part.values["model_type"] = part_model_type;
      part.names.erase("model_type");
      for (const auto& [key, value] : legacy->items()) {
        part.values[key] = value;
        part.names[key] = n.legacy_section + "." + key;
      }
    }
    if (const auto it = part.values.find("model_type");
        it != part.values.end() && it->second != nlohmann::json(part_model_type)) {
      throw Error(fmt::format("{}: {} = {}, expected \"{}\" inside a \"{}\" folder", s.where,
                              part.names[it->first], it->second.dump(), part_model_type,
                              n.model_type));
    }
    part.values["model_type"] = part_model_type;
    for (const auto& [key, value] : part_defaults) {
      if (part.values.count(key)) continue;
      const bool whole = value == std::floor(value) && std::abs(value) < 1e15;
      part.values[key] =
          whole ? nlohmann::json(static_cast<int64_t>(value)) : nlohmann::json(value);
      part.names[key] = n.section + "." + key + " (absent: the class default)";
    }
    canonical_activations(part);
    s = std::move(part);
  }
}

std::string ConfigSources::model_type() const {
  for (const auto& s : sources_) {
    auto it = s.values.find("model_type");
    if (it != s.values.end() && it->second.is_string()) return it->second.get<std::string>();
  }
  return "";
}

void ConfigSources::refuse_file_keys(const std::vector<std::string>& keys,
                                     const std::string& why) const {
  for (const auto& source : sources_) {
    if (source.where == k_flags) continue;
    for (const auto& key : keys) {
      const auto it = source.values.find(key);
      if (it == source.values.end()) continue;
      throw Error(fmt::format("{}: \"{}\" = {}: {}", source.where, key, it->second.dump(), why));
    }
  }
}

}  // namespace attnviz::detail
