// --generate: what ends a generation (the model's EOS tokens) and what its files ask for that
// greedy decoding does not do, read before the model generates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/model/model.hpp"

namespace attnviz {

struct GenerationSettings {
  std::vector<int64_t>
      eos;  // generation_config.json's eos_token_id, else config.json's, else GGUF's
  // "m/generation_config.json asks for num_beams = 4, bad_words_ids = [[58100]]: attnviz decodes
  // greedily (one beam) and applies none of them": every setting that would change the greedy
  // result, named, never applied silently or dropped silently.
  std::vector<std::string> notes;
};

// From the model's folder (generation_config.json, config.json) or its GGUF metadata
// (tokenizer.ggml.eos_token_id). A malformed eos_token_id is an Error naming the file.
GenerationSettings generation_settings(const Model& model);

}  // namespace attnviz
