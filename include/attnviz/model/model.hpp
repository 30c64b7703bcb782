// A model ready to run: config and weights, loaded from safetensors.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

struct Model {
  std::string name;  // the file or folder name, for titles
  Config config;
  Weights weights;
  std::filesystem::path dir;  // the folder holding the weights (and a vocabulary or tokenizer)
  std::filesystem::path
      gguf;  // the GGUF file the model came from (its tokenizer is inside), or empty
  // What loading left out that the file holds (a classification head, a CLIP model's text tower),
  // for stderr.
  std::vector<std::string> notes;
};

// Loads a .safetensors file, a model folder (config.json + model.safetensors, or shards with
// model.safetensors.index.json), or a GGUF file of a Hugging Face family (llama, qwen2, qwen3,
// gemma2, gemma3, phi3: its metadata stands in for config.json). The layout is detected from the
// tensor names (or config.json's model_type), unless overrides name one. Hyperparameters come from
// the file's __metadata__, config.json, the layout's family defaults and flags; a value that
// contradicts another source is a usage error. Missing tensors and wrong shapes name the tensor,
// the expected and actual shape.
Model load_model(const std::filesystem::path& path, const ConfigOverrides& overrides);

// "layout gpt2 (prefix transformer.), decoder, 2 layers, d_model 32, 4 heads, …" for `inspect`.
std::string describe_config(const Config& c);

}  // namespace attnviz
