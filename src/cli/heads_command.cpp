// `attnviz heads`: head detection scores (previous-token, duplicate-token, induction, sink, or a
// user's pattern) for every head, ranked, on a built-in probe or the user's input.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/heads_plan.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "attnviz/inputs/probe.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/reports/heads_report.hpp"
#include "batch_input.hpp"
#include "batch_run.hpp"
#include "stats_batch.hpp"

namespace attnviz {

namespace {

// The table on stdout and, with --png, a chart per pattern.
void report_heads(const std::vector<HeadScores>& heads, const DetectionOptions& detection,
                  const HeadsReportOptions& report, const std::string& png_dir,
                  const FigureFile& file) {
  std::cout << render_heads(heads, detection, report);
  std::cout.flush();
  if (!png_dir.empty()) {
    const auto charts = write_heads_charts(
        png_dir, heads, detection, fmt::format("{} · {}", report.model_name, report.input), file);
    note_figures_written(charts.size(), png_dir);
  }
}

// heads --batch: built-in patterns over every input of the file (or this shard's), pooled per head.
void heads_batch(const HeadsArgs& a, DetectionOptions detection, HeadsReportOptions report,
                 const std::vector<std::string>& names) {
  for (const auto& name : names) detection.patterns.push_back(builtin_pattern(name));
  const BatchScan scan = scan_batch(a.batch.file);
  PreparedRun run = prepare_model(a.in, detail::tokenizer_use(scan));
  detection.selection = run.selection;
  report.model_name = run.model.name;
  const BatchResult result = detail::run_heads_batch(run, a.in, detection, a.batch, scan,
                                                     detail::batch_settings(a.in, run));
  report.input = result.input;
  report_heads(result.summary, detection, report, a.png_dir, a.figure_file);
}

// A built-in name, or a 0/1 matrix file [N, N] (text or .npy, 1 = on the pattern) named by its
// stem.
PatternSpec pattern_of(const std::string& text, int n) {
  for (const char* name : k_builtin_patterns) {
    if (text == name) return builtin_pattern(text);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(text, ec)) builtin_pattern(text);  // the unknown-name error
  auto matrix =
      std::make_shared<const MaskMatrix>(read_mask_file(text, n, n, MaskConvention::keep));
  return {DetectionPattern::user, std::filesystem::path(text).stem().string(), std::move(matrix)};
}

std::string input_text(const InputArgs& in, const PreparedRun& run) {
  const auto n = run.inputs.target.x.rows();
  if (in.target.probe.empty()) return fmt::format("{} tokens", n);
  return fmt::format("probe {} (seed {}), {} tokens", in.target.probe,
                     in.target.probe_seed.empty() ? "0" : in.target.probe_seed, n);
}

HeadsReportOptions report_options(const std::string& format, int precision, int top) {
  HeadsReportOptions report;
  report.format = parse_table_format(format);
  report.precision = precision;
  report.top = top;
  return report;
}

void heads_command(const HeadsArgs& a) {
  const HeadsPlan plan = resolve_heads(a);  // every flag checked: nothing has loaded yet
  DetectionOptions detection = plan.detection;
  HeadsReportOptions report = plan.report;
  const std::vector<std::string>& names = plan.patterns;
  if (plan.batch) return heads_batch(a, detection, report, names);
  const PreparedRun run = prepare_run(a.in);
  const int n = static_cast<int>(run.inputs.target.x.rows());
  for (const auto& name : names) detection.patterns.push_back(pattern_of(name, n));
  // A pattern file is [N, N] at the target's length; an encoder-decoder's encoder maps are over the
  // source: refused before the run when the lengths differ.
  bool user_pattern = false;
  for (const auto& p : detection.patterns) user_pattern |= p.matrix != nullptr;
  if (user_pattern && run.inputs.source && run.inputs.source->x.rows() != n) {
    for (const auto& id : run.maps.maps) {
      if (id.stack != "encoder") continue;
      throw usage_error(fmt::format(
          "--pattern FILE: a pattern file is [{0}, {0}], the target's tokens, but the encoder's "
          "maps are over the {1} source tokens; give a source of {0} tokens, or built-in "
          "patterns only",
          n, run.inputs.source->x.rows()));
    }
  }
  bool tokens_needed = false;
  for (const auto& p : detection.patterns) tokens_needed |= needs_tokens(p.kind);
  if (tokens_needed) {
    // --embeddings carry no tokens (their labels are positions) unless --tokens names them.
    const auto no_tokens = [](const SequenceFlags& f) {
      return !f.embeddings.empty() && f.tokens.empty();
    };
    if (no_tokens(a.in.target) || (run.inputs.source && no_tokens(a.in.source))) {
      throw usage_error(
          "the duplicate-token and induction patterns compare tokens, and --embeddings has none: "
          "give --tokens (or --source-tokens) alongside, or --pattern previous-token / sink / "
          "FILE");
    }
    detection.tokens = detail::token_identities(run.inputs.target);
    if (run.inputs.source) detection.source_tokens = detail::token_identities(*run.inputs.source);
  }
  detection.selection = run.selection;
  report.model_name = run.model.name;
  report.input = input_text(a.in, run);
  HeadDetector heads(detection);
  run_collecting(run, heads);
  if (heads.heads().empty()) {
    throw usage_error(
        "heads scores self-attention maps, and the selection reached none (a cross map has no "
        "detection pattern)");
  }
  report_heads(heads.heads(), heads.options(), report, a.png_dir, a.figure_file);
}

struct MergeArgs {
  std::vector<std::string> files;
  std::string sort, format = "text", png_dir, chart;
  int precision = 3, top = 0;
  bool ascending = false;
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;
};

void merge_command(const MergeArgs& a) {
  HeadsReportOptions report = report_options(a.format, a.precision, a.top);
  ItemsHeader header;
  const BatchResult result = merge_items(a.files, header);
  if (header.command == "stats") {
    detail::report_stats_batch(
        result, header,
        detail::StatsBatchFlags{a.format, a.precision, a.sort, a.ascending, a.top, a.png_dir,
                                a.chart, 0, a.figure_file});
    return;
  }
  if (a.ascending || !a.chart.empty())
    throw usage_error("--ascending and --chart go with the --items files of stats --batch");
  const DetectionOptions detection = detection_of(header);
  report.model_name = header.model;
  std::vector<std::string> names;
  for (const auto& p : detection.patterns) names.push_back(p.name);
  report.sort = sort_index(a.sort, names);
  report.input = result.input;
  report_heads(result.summary, detection, report, a.png_dir, a.figure_file);
}

}  // namespace

void add_heads_command(CLI::App& app) {
  auto args = std::make_shared<HeadsArgs>();
  CLI::App* cmd = app.add_subcommand("heads",
                                     "head detection: the share of each head's attention on the "
                                     "previous token, earlier copies of the token "
                                     "(duplicate), the token after them (induction), the first "
                                     "token (sink), or a pattern file; ranked");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--pattern", args->patterns,
                  "previous-token, duplicate-token, induction, sink, or a 0/1 matrix file [N, N] "
                  "(text or .npy); "
                  "repeat the flag for several (default: the four built-in ones)");
  cmd->add_option("--measure", args->measure,
                  "mul: share of attention on the pattern (default); abs: 1 - sum|A - P| / N "
                  "(TransformerLens's "
                  "error measures)")
      ->check(CLI::IsMember({"mul", "abs"}));
  cmd->add_flag("--exclude-bos", args->exclude_bos,
                "leave attention to the first key out of both sums");
  cmd->add_flag("--exclude-current", args->exclude_current,
                "leave attention to a query's own key out");
  cmd->add_option("--sort", args->sort, "rank heads by this pattern (default: the first)");
  cmd->add_option("--top", args->top, "only the first K heads")->check(positive_number());
  add_table_format_flag(*cmd, args->format, "text, csv, json or markdown");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text, markdown)");
  cmd->add_option("--png", args->png_dir,
                  "write a layer × head chart per pattern into this folder");
  detail::add_batch_flags(
      *cmd, args->batch.file, args->batch.shard, "score",
      "the table shows each head's mean over them (attnviz merge pools shards' --items)");
  cmd->add_option("--items", args->batch.items,
                  "with --batch: write each input's scores as JSON lines into this file");
  add_figure_flags(*cmd, args->figure_flags);
  cmd->callback([args, cmd] {
    args->figure_file = figure_file(*cmd, args->figure_flags);
    heads_command(*args);
  });
}

void add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand("merge",
                                     "pool the --items files of every shard of one `heads --batch` "
                                     "or `stats --batch` run: the figures one "
                                     "run gives");
  cmd->add_option("ITEMS", args->files, "every shard's --items file")->required();
  cmd->add_option("--sort", args->sort,
                  "rank heads by this pattern (heads; default: the first) or figure (stats)");
  cmd->add_flag("--ascending", args->ascending, "stats: with --sort, smallest first");
  cmd->add_option("--chart", args->chart,
                  "stats: the figure of the --png chart (default saturated)");
  cmd->add_option("--top", args->top, "only the first K heads")->check(positive_number());
  add_table_format_flag(*cmd, args->format, "text, csv, json or markdown");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text, markdown)");
  cmd->add_option("--png", args->png_dir,
                  "write a layer × head chart per pattern into this folder");
  add_figure_flags(*cmd, args->figure_flags);
  cmd->callback([args, cmd] {
    args->figure_file = figure_file(*cmd, args->figure_flags);
    merge_command(*args);
  });
}

}  // namespace attnviz
