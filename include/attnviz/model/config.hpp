// Config: every hyperparameter of a model, from the file's metadata, config.json and flags.
#pragma once

#include <optional>
#include <string>

namespace attnviz {

struct Config {
  std::string arch = "mha";  // "mha": one multi-head attention layer (seed 000 / 001 / 002 modules)
  int d_model = 0;           // width of each input vector x_i (in_features of q, k, v)
  int n_heads = 0;           // heads; the q/k and v widths split evenly across them
  int d_qk = 0;              // total query/key width = n_heads · d_k (out_features of q and k)
  int d_v = 0;               // total value width = n_heads · d_head_v (out_features of v)
  int d_out = 0;             // width after the out projection (0 when the model has none)
  int vocab_size = 0;        // rows of the token embedding table (0: tokens are hash-embedded)
  int max_positions = 0;     // the longest input the model accepts (0: no limit)

  int d_k() const { return d_qk / n_heads; }       // per-head query/key width
  int d_head_v() const { return d_v / n_heads; }   // per-head value width
};

// Hyperparameters given on the command line; each must agree with the file when the file has it.
struct ConfigOverrides {
  std::optional<int> n_heads;
};

}  // namespace attnviz
