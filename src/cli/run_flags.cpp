// `attnviz run` flags: the shared inputs plus what to show and where to write it.
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/run_args.hpp"

namespace attnviz {

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run a model on tokens and show its attention maps");
  add_input_flags(*cmd, args->in);
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
