// Hyperparameter sources (file metadata, config.json, flags) and the value they agree on.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/tensor_source.hpp"

namespace attnviz::detail {

struct ConfigSource {
  std::string where;  // "model.safetensors __metadata__", "config.json", …
  std::map<std::string, nlohmann::json> values;
  // A value's name in the file where it is not its key in `values` (a GGUF file's
  // "llama.attention.head_count" for num_attention_heads), so messages name what the file says.
  std::map<std::string, std::string> names;
};

// A value with the source and name it came from, for messages.
struct Declared {
  nlohmann::json value;
  std::string
      origin;  // "m/config.json: intermediate_size = 48", "m.gguf metadata: llama.block_count = 2"
  std::string where;  // "m/config.json", "m.gguf metadata", "the command line"
  // A bad value from a flag is a usage error (exit 2), one from a file the file's (exit 1).
  Error error(const std::string& message) const;
};

class ConfigSources {
 public:
  ConfigSources(const TensorSource& tensors, const ConfigOverrides& flags);

  // The value every source that has one of `keys` (aliases, e.g. n_head / num_attention_heads)
  // agrees on; a disagreement between sources is a usage error naming both.
  std::optional<nlohmann::json> agreed(const std::vector<std::string>& keys) const;
  // An integer in [min, INT_MAX]; else an Error naming the source, the key, the range and the
  // value.
  std::optional<int> integer(const std::vector<std::string>& keys, int min = 1) const;
  // A finite number in the open interval (above, below); else an Error as for integer.
  std::optional<double> number(const std::vector<std::string>& keys, double above,
                               double below) const;
  std::optional<bool> boolean(const std::vector<std::string>& keys) const;
  std::optional<std::string> text(const std::vector<std::string>& keys) const;
  // The agreed value of `keys` and where it came from; nullopt when no source has one.
  std::optional<Declared> declared(const std::vector<std::string>& keys) const;
  // Values transformers' config class of the family gives a key config.json leaves out (not one it
  // sets to null): used only when no source has the key.
  void set_defaults(const std::vector<std::pair<std::string, double>>& defaults,
                    const std::string& family);
  // The family's other names of keys (Layout::config_aliases), read as the key attnviz reads: in
  // each file, an alias's value stands for the key's; two names of one key that disagree in a file
  // are an Error naming both.
  void add_aliases(const std::vector<std::pair<std::string, std::vector<std::string>>>& aliases);
  // A whole-model folder's config.json (CLIPModel's "clip") read as the config of the part the
  // family runs: the keys under `n.section` replace the file's top-level keys, named
  // "vision_config.hidden_size" in messages; `n.legacy_section`'s keys override them and, where it
  // leaves one of `class_keys` out, the part's config class default stands (transformers'
  // CLIPConfig: vision_config.update(CLIPVisionConfig(**vision_config_dict).to_dict())).
  // `part_model_type` is the part's model_type; the section may name it, and no other.
  // `part_defaults` (the part's config class defaults) fill the keys the section leaves out, named
  // "text_config.hidden_size (absent: the class default)" in messages.
  void descend(const NestedConfig& n, const std::string& part_model_type,
               const std::vector<std::string>& class_keys,
               const std::vector<std::pair<std::string, double>>& part_defaults);
  // config.json's model_type (Hugging Face), for layout detection.
  std::string model_type() const;
  // A key a file (not the command line) sets is an Error naming the file, the key, its value and
  // `why` it cannot be read: attnviz's own keys in a transformers family's config.json.
  void refuse_file_keys(const std::vector<std::string>& keys, const std::string& why) const;

 private:
  struct Found {
    nlohmann::json value;
    std::string where, key;  // the first source that has it, and under which alias
    std::string name;        // the key as the file names it (ConfigSource::names), else `key`
  };
  std::optional<Found> find(const std::vector<std::string>& keys) const;
  static Error out_of_range(const Found& f, const std::string& range);
  std::vector<ConfigSource> sources_;
  ConfigSource defaults_;
};

}  // namespace attnviz::detail
