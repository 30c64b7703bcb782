// `attnviz run` flags: what a user can ask for, registered on the CLI11 app.
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/run_args.hpp"

namespace attnviz {

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run a model on tokens and show its attention maps");
  cmd->add_option("--model,-m", args->model, ".safetensors file or model folder")->required();
  cmd->add_option("--tokens,-t", args->tokens, "UTF-8 token file (whitespace-separated), - for stdin");
  cmd->add_option("--ids", args->ids, "token ids: \"5 17 3\" or a file holding them");
  cmd->add_option("--embeddings", args->embeddings, ".npy [N, d_model] fed to the layer directly");
  cmd->add_option("--source-tokens", args->source_tokens, "cross-attention source tokens");
  cmd->add_option("--source-ids", args->source_ids, "cross-attention source ids");
  cmd->add_option("--source-embeddings", args->source_embeddings, "cross-attention source .npy");
  cmd->add_option("--heads", args->heads, "number of heads, when the model file lacks it");
  cmd->add_flag("--causal", args->causal, "causal mask: query i sees keys j <= i");
  cmd->add_option("--pad", args->pad, "the last N keys are padding")->check(CLI::NonNegativeNumber);
  cmd->add_option("--mask", args->mask_file, "0/1 mask matrix [queries, keys] (text or .npy)");
  cmd->add_option("--scale", args->scale, "factor on q·k: a number, or none (default 1/sqrt(d_k))");
  cmd->add_option("--block-rows", args->block_rows, "query rows per streamed block")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--layer", args->layer, "show only this layer")->check(CLI::NonNegativeNumber);
  cmd->add_option("--head", args->head, "show only this head (tables: default head 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--site", args->site, "show only self or cross attention")
      ->check(CLI::IsMember({"self", "cross"}));
  cmd->add_option("--table", args->table, "tables to print: probs, scores, both, none")
      ->check(CLI::IsMember({"probs", "scores", "both", "none"}));
  cmd->add_option("--precision", args->precision, "digits after the decimal point in tables")
      ->check(CLI::Range(0, 9));
  cmd->add_option("--format", args->format, "table format: text, csv, json (csv/json: no heatmaps)")
      ->check(CLI::IsMember({"text", "csv", "json"}));
  cmd->add_option("--png", args->png_dir, "write one PNG heatmap per head into this folder");
  cmd->add_option("--save", args->save, "write every map's scores and probs to a .safetensors file");
  cmd->add_option("--color", args->color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--width", args->width, "terminal width in columns (default: detected)")
      ->check(CLI::Range(20, 10000));
  cmd->add_option("--cmap", args->cmap, "colour map for heatmaps");
  cmd->add_flag("--no-heatmap", args->no_heatmap, "print tables only");
  cmd->callback([args] { run_command(*args); });
}

}  // namespace attnviz
