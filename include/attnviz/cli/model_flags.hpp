// The model flags: hyperparameters and layouts a file may lack, shared by run, stats, check and
// inspect.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "attnviz/model/config.hpp"

namespace attnviz {

struct ModelFlags {
  std::optional<int> heads;
  std::string layout, layout_file;  // --layout NAME, --layout-file map.json
  bool norm_first = false;          // hyperparameters a bare state dict cannot carry
  std::string activation;
  std::optional<float> layer_norm_eps;
  std::optional<float> pe_base;
};

// --heads, --layout, --layout-file, --norm-first, --activation, --layer-norm-eps, --pe-base.
void add_model_flags(CLI::App& cmd, ModelFlags& flags);

// What load_model checks against the file: only the flags given.
ConfigOverrides overrides_of(const ModelFlags& flags);

}  // namespace attnviz
