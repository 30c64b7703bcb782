// `attnviz run` flags: the shared inputs plus what to show and where to write it.
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

FigureFile run_figure_file(const CLI::App& cmd, const RunArgs& args) {
  return figure_file(
      cmd, args.figure_flags,
      {"--png-raw", "--scale", "--log", "--linear", "--max-pixels", "--pool", "--font"}, args.font);
}

}  // namespace

void add_run_output_flags(CLI::App& cmd_ref, RunArgs& a) {
  CLI::App* cmd = &cmd_ref;
  RunArgs* args = &a;
  cmd->add_option("--table", args->table, "tables to print: probs, scores, both, none")
      ->check(CLI::IsMember({"probs", "scores", "both", "none"}));
  add_precision_flag(*cmd, args->precision, "digits after the decimal point in tables");
  add_table_format_flag(*cmd, args->format,
                        "table format: text, csv, json, markdown (all but text: no heatmaps)");
  cmd->add_option("--png", args->png_dir,
                  "write figures into this folder: one per head, a layer × head grid, masks");
  cmd->add_flag("--png-raw", args->png_raw,
                "also write each map as a bare image, a pixel block per cell");
  cmd->add_option("--scale", args->scale,
                  "colour range: per-head ([0, head max]) or shared ([0, 1])")
      ->check(CLI::IsMember({"per-head", "shared"}));
  cmd->add_flag("--log", args->log_scale,
                "log colour scale in figures (4 decades below the max; the default for "
                "causal maps over 32 tokens)");
  cmd->add_flag("--linear", args->linear_scale, "linear colour scale in figures, causal maps too")
      ->excludes("--log");
  cmd->add_option("--panel", args->panel,
                  "with --png: also draw these heads side by side on one colour scale, "
                  "DIR/panel.png, .svg or .pdf (L3H5,L5H1; "
                  "decoder.L1H0.cross); with --overlay DIR: their overlays in a row, "
                  "DIR/panel.overlay.png");
  cmd->add_option("--max-pixels", args->max_pixels,
                  "figures pool longer maps to this many cells per side")
      ->check(CLI::Range(16, 16384));
  cmd->add_option("--pool", args->pool, "pooling of long maps: max or mean")
      ->check(CLI::IsMember({"max", "mean"}));
  cmd->add_option("--font", args->font,
                  "font for figures: a file or a fontconfig name (default sans-serif)");
  add_figure_flags(*cmd, args->figure_flags, true);
  cmd->add_option(
      "--html", args->html,
      "write one self-contained viewer page (no server, no network): model view, zoomable heatmap "
      "with tooltips, head view, stats table");
  cmd->add_option("--html-cells", args->html_cells,
                  "with --html: maps longer than this are stored mean/max-pooled to this many "
                  "cells per side, "
                  "each query's 8 strongest keys exactly (default 512; at most 8192, whose float16 "
                  "planes a browser still reads)")
      ->check(CLI::Range(16, 8192));
  cmd->add_option("--overlay", args->overlay,
                  "a vision model's image with each head's attention from --query tinted onto it: "
                  "a figure per head in DIR (--figure-format), or - for the terminal")
      ->each([args](const std::string&) { args->overlay_given = true; });
  cmd->add_option("--query", args->query,
                  "--overlay's query token: CLS (the default when the model has one), dist, reg0, "
                  "p(ROW,COL), or mean (of the patches' rows: the default without CLS)");
  cmd->add_option("--save", args->save,
                  "write the selected maps' scores and probs to a .safetensors file, streamed as "
                  "they are computed");
  cmd->add_option("--save-dtype", args->save_dtype,
                  "dtype of saved maps: f32, or f16 (IEEE half, rounded to nearest; values beyond "
                  "±65504 become ±inf)")
      ->check(CLI::IsMember({"f32", "f16"}));
  cmd->add_option("--color", args->color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  add_width_flag(*cmd, args->width, "terminal width in columns (default: detected)");
  cmd->add_option("--cmap", args->cmap,
                  "colour map of the weights: viridis, magma, inferno, plasma");
  cmd->add_flag("--no-heatmap", args->no_heatmap, "print tables only");
  cmd->add_option("--logits", args->logits,
                  "also print each position's K most likely next tokens (logit, probability)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--check", args->check,
                "also check every map as `attnviz check` does (exit 3 on a problem)");
}

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run a model on tokens and show its attention maps");
  add_input_flags(*cmd, args->in);
  add_run_output_flags(*cmd, *args);
  cmd->callback([args, cmd] {
    args->png_given = cmd->count("--png") > 0;
    args->save_given = cmd->count("--save") > 0;
    args->html_given = cmd->count("--html") > 0;
    if (cmd->count("--html-cells") > 0 && !args->html_given)
      throw usage_error("--html-cells: give --html FILE too");
    args->figure_file = run_figure_file(*cmd, *args);
    run_command(*args);
  });
}

void add_rollout_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  args->rollout = true;
  CLI::App* cmd = app.add_subcommand("rollout",
                                     "attention rollout (Abnar & Zuidema 2020): per layer the "
                                     "heads combined, the residual added as "
                                     "(1 - a)·A + a·I, rows renormalised, multiplied up through "
                                     "the layers; shown like run's maps");
  add_input_flags(*cmd, args->in);
  add_run_output_flags(*cmd, *args);
  cmd->add_option("--combine", args->combine,
                  "how a layer's heads are combined: mean (default), max or min "
                  "(--head H: that head alone)")
      ->check(CLI::IsMember({"mean", "max", "min"}));
  cmd->add_option("--discard-ratio", args->discard_ratio,
                  "drop this share of each combined layer's smallest weights before the identity "
                  "is added, all but entry (0, 0), as jacobgil/vit-explain does (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--vit-explain-division", args->vit_explain,
                "divide as jacobgil/vit-explain's code does, entry (i, j) by row j's sum, instead "
                "of renormalising each row (the same for a mean of heads with nothing discarded)");
  cmd->add_option("--residual", args->residual,
                  "weight a of the identity, for the residual connection (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag(
      "--flow", args->flow,
      "attention flow instead (Abnar & Zuidema 2020): per token pair the maximum "
      "flow through the layers' graph, rows normalised; about L·N^4 steps, so at most 128 tokens");
  cmd->callback([args, cmd] {
    args->png_given = cmd->count("--png") > 0;
    args->save_given = cmd->count("--save") > 0;
    args->html_given = cmd->count("--html") > 0;
    if (cmd->count("--html-cells") > 0 && !args->html_given)
      throw usage_error("--html-cells: give --html FILE too");
    args->figure_file = run_figure_file(*cmd, *args);
    run_command(*args);
  });
}

}  // namespace attnviz
