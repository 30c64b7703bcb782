// tokenizer_config.json.
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

std::optional<bool> TokenizerConfig::flag(std::string_view key) const {
  const auto it = json.find(std::string(key));
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean())
    throw Error(
        fmt::format("{}: {}: expected true or false, got {}", path.string(), key, shown(*it)));
  return it->get<bool>();
}

std::optional<std::string> TokenizerConfig::text(std::string_view key) const {
  const auto it = json.find(std::string(key));
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw Error(fmt::format("{}: {}: expected a string, got {}", path.string(), key, shown(*it)));
  return it->get<std::string>();
}

std::optional<std::string> TokenizerConfig::token(std::string_view key) const {
  const auto it = json.find(std::string(key));
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && it->at("content").is_string()) {
    return it->at("content").get<std::string>();
  }
  throw Error(fmt::format("{}: {}: expected a token (a string or {{\"content\": …}}), got {}",
                          path.string(), key, shown(*it)));
}

TokenizerConfig read_tokenizer_config(const fs::path& dir) {
  TokenizerConfig config;
  std::error_code ec;
  const fs::path path = dir / "tokenizer_config.json";
  if (!fs::exists(path, ec)) return config;
  config.path = path;
  config.json = read_json_file(path);
  if (!config.json.is_object()) {
    throw Error(
        fmt::format("{}: expected a JSON object, got {}", path.string(), config.json.type_name()));
  }
  return config;
}

}  // namespace attnviz
