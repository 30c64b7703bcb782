// A model ready to run: config, weights and (optionally) its vocabulary; loaded from safetensors.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

struct Model {
  std::string name;                // the file or folder name, for titles
  Config config;
  Weights weights;
  std::vector<std::string> vocab;  // id → token (vocab.txt beside the weights), empty when none
};

// Loads a .safetensors file or a folder holding one (plus config.json, vocab.txt).
// Hyperparameters come from the file's __metadata__, then config.json, then overrides; a value that
// contradicts another source is a usage error. Missing tensors and wrong shapes name the tensor,
// the expected and the actual shape.
Model load_model(const std::filesystem::path& path, const ConfigOverrides& overrides);

}  // namespace attnviz
