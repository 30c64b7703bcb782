// Hyperparameter sources (file metadata, config.json, flags) and the value they agree on.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/tensor_source.hpp"

namespace attnviz::detail {

struct ConfigSource {
  std::string where;                          // "model.safetensors __metadata__", "config.json", …
  std::map<std::string, nlohmann::json> values;
};

class ConfigSources {
 public:
  ConfigSources(const TensorSource& tensors, const ConfigOverrides& flags);

  // The value every source that has one of `keys` (aliases, e.g. n_head / num_attention_heads)
  // agrees on; a disagreement between sources is a usage error naming both.
  std::optional<nlohmann::json> agreed(const std::vector<std::string>& keys) const;
  // An integer in [min, INT_MAX]; else an Error naming the source, the key, the range and the value.
  std::optional<int> integer(const std::vector<std::string>& keys, int min = 1) const;
  // A finite number in the open interval (above, below); else an Error as for integer.
  std::optional<double> number(const std::vector<std::string>& keys, double above, double below) const;
  std::optional<bool> boolean(const std::vector<std::string>& keys) const;
  std::optional<std::string> text(const std::vector<std::string>& keys) const;
  // Values transformers' config class of the family gives a key config.json leaves out (not one it
  // sets to null): used only when no source has the key.
  void set_defaults(const std::vector<std::pair<std::string, double>>& defaults, const std::string& family);
  // config.json's model_type (Hugging Face), for layout detection.
  std::string model_type() const;

 private:
  struct Found {
    nlohmann::json value;
    std::string where, key;  // the first source that has it, and under which alias
  };
  std::optional<Found> find(const std::vector<std::string>& keys) const;
  static Error out_of_range(const Found& f, const std::string& range);
  std::vector<ConfigSource> sources_;
  ConfigSource defaults_;
};

}  // namespace attnviz::detail
