// tokenizer_config.json beside a tokenizer (transformers' settings: add_bos_token, do_lower_case,
// bos_token, …) (private to inputs/).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz {

struct TokenizerConfig {
  std::filesystem::path path;  // empty when the folder has none
  nlohmann::json json = nlohmann::json::object();

  // A true/false setting; nullopt when absent or null; an Error naming the file and key otherwise.
  std::optional<bool> flag(std::string_view key) const;
  // A token setting: a string, or an AddedToken object {"content": …} as transformers saves it.
  std::optional<std::string> token(std::string_view key) const;
  std::optional<std::string> text(std::string_view key) const;
};

// dir/tokenizer_config.json when it exists (bounded, regular file, a JSON object).
TokenizerConfig read_tokenizer_config(const std::filesystem::path& dir);

}  // namespace attnviz
