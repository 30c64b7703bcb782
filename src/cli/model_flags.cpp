// The model flags, declared once for every command that loads a model.
#include "attnviz/cli/model_flags.hpp"

#include "attnviz/cli/validators.hpp"

namespace attnviz {

void add_model_flags(CLI::App& cmd, ModelFlags& flags) {
  cmd.add_option("--heads", flags.heads, "number of heads, when the model file lacks it")
      ->check(positive_number());
  cmd.add_option("--layout", flags.layout,
                 "tensor-name layout: seed000, seed001, seed002, torch-mha, torch-encoder, "
                 "torch-decoder, torch-transformer, nanogpt, gpt2, bert (default: detected)");
  cmd.add_option("--layout-file", flags.layout_file, "JSON mapping of roles to tensor-name patterns");
  cmd.add_flag("--norm-first", flags.norm_first, "pre-norm layers (nn.Transformer* norm_first=True)");
  cmd.add_option("--activation", flags.activation, "FFN activation: relu, gelu, gelu_tanh, silu");
  cmd.add_option("--layer-norm-eps", flags.layer_norm_eps, "epsilon of every LayerNorm / RMSNorm")->check(positive_number());
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
