// `attnviz run`: the raw flags as CLI11 fills them (validated into a plan by run_command).
#pragma once

#include <optional>
#include <string>

namespace attnviz {

struct RunArgs {
  std::string model;
  std::string tokens, ids, embeddings;                       // queries (and self-attention keys)
  std::string source_tokens, source_ids, source_embeddings;  // cross-attention keys / values
  std::optional<int> heads;
  bool causal = false;
  int pad = 0;
  std::string mask_file;
  std::string scale;  // "" = 1/sqrt(d_k), "none" = 1, or a number
  int block_rows = 256;
  std::optional<int> layer, head;
  std::string site;
  std::string table = "probs";
  int precision = 3;
  std::string format = "text";
  std::string png_dir, save;
  std::string color = "auto";
  int width = 0;
  std::string cmap = "viridis";
  bool no_heatmap = false;
};

// Runs the model on the inputs and sends the maps to the requested outputs; failures throw Error.
void run_command(const RunArgs& args);

}  // namespace attnviz
