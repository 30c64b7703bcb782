// The model flags, declared once for every command that loads a model.
#include "attnviz/cli/model_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "attnviz/cli/validators.hpp"
#include "attnviz/model/layout.hpp"

namespace attnviz {

namespace {

// The built-in layouts' names, from the registry itself, so the help and the check list exactly
// those.
std::vector<std::string> layout_names() {
  std::vector<std::string> names;
  for (const auto& l : builtin_layouts()) names.push_back(l.name);
  return names;
}

// The older names --layout still accepts, as "old = new".
std::vector<std::string> layout_aliases() {
  std::vector<std::string> aliases;
  for (const auto& l : builtin_layouts()) {
    if (!l.alias.empty()) aliases.push_back(l.alias + " = " + l.name);
  }
  return aliases;
}

}  // namespace

void add_model_flags(CLI::App& cmd, ModelFlags& flags) {
  cmd.add_option("--heads", flags.heads, "number of heads, when the model file lacks it")
      ->check(positive_number());
  // Checked while parsing (exit 2), so every command refuses an unknown name before it reads a
  // file.
  cmd.add_option("--layout", flags.layout,
                 fmt::format("tensor-name layout: {} (default: detected; older names: {})",
                             fmt::join(layout_names(), ", "), fmt::join(layout_aliases(), ", ")))
      ->check(CLI::Validator(
          [](std::string& name) {
            const auto names = layout_names();
            if (std::find(names.begin(), names.end(), name) != names.end()) return std::string();
            for (const auto& l : builtin_layouts()) {
              if (!l.alias.empty() && l.alias == name) return std::string();
            }
            return fmt::format("unknown layout '{}' (known: {})", name, fmt::join(names, ", "));
          },
          "NAME"));
  cmd.add_option("--layout-file", flags.layout_file,
                 "JSON mapping of roles to tensor-name patterns");
  cmd.add_flag("--norm-first", flags.norm_first,
               "pre-norm layers (nn.Transformer* norm_first=True)");
  cmd.add_option("--activation", flags.activation,
                 "FFN activation: relu, gelu, gelu_tanh, silu, quick_gelu");
  cmd.add_option("--layer-norm-eps", flags.layer_norm_eps, "epsilon of every LayerNorm / RMSNorm")
      ->check(positive_number());
  cmd.add_option("--pe-base", flags.pe_base, "base of the sinusoidal positional encoding (10000)")
      ->check(positive_number());
}

ConfigOverrides overrides_of(const ModelFlags& flags) {
  ConfigOverrides o;
  o.n_heads = flags.heads;
  if (flags.norm_first) o.norm_first = true;
  if (!flags.activation.empty()) o.activation = flags.activation;
  o.layer_norm_eps = flags.layer_norm_eps;
  o.pe_base = flags.pe_base;
  o.layout = flags.layout;
  o.layout_file = flags.layout_file;
  return o;
}

}  // namespace attnviz
