// `attnviz init`: a seeded random multi-head attention model, as nn.Linear would initialise it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnviz {

struct InitOptions {
  int d_model = 128;
  int n_heads = 4;
  int d_qk = 0;  // 0: d_model, as in a standard nn.MultiheadAttention
  int d_v = 0;   // 0: d_model
  bool out_proj = true;
  int max_positions = 0;
  uint64_t seed = 0;
  std::vector<std::string> vocab;  // when non-empty: an embedding table [vocab, d_model] and vocab.txt
};

// Writes dir/model.safetensors (tensors q/k/v/out.{weight,bias}, hyperparameters in __metadata__)
// and dir/config.json. Weights and biases ~ U(-1/sqrt(in), 1/sqrt(in)) like nn.Linear's default init;
// the embedding table ~ N(0, 1) like nn.Embedding's.
void init_model(const std::filesystem::path& dir, const InitOptions& options);

}  // namespace attnviz
