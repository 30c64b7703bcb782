// `attnviz run`: prepare the forward pass, wire the requested sinks, run, report.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "attnviz/analysis/check.hpp"
#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/predictions.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/rollout_maps.hpp"
#include "attnviz/cli/saved_tokens.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/event/panel.hpp"
#include "attnviz/event/sink_list.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/sinks/html_sink.hpp"
#include "attnviz/sinks/png_sink.hpp"
#include "attnviz/sinks/progress_sink.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "attnviz/sinks/terminal_sink.hpp"

namespace attnviz {

namespace {

// Heatmaps, figures and weight tables show probabilities, in [0, 1]: a diverging map would put its
// neutral middle at 0.5 and read as signed. Score tables use the diverging map by themselves.
ColormapId weights_colormap(const std::string& name) {
  const ColormapId cmap = parse_colormap(name);
  if (cmap == ColormapId::diverging) {
    throw usage_error(
        "--cmap diverging: a diverging map is for signed values (scores or differences), but "
        "heatmaps and figures show attention weights in [0, 1]: use viridis, magma, inferno or "
        "plasma (score tables are coloured on the diverging map already)");
  }
  return cmap;
}

TableKind parse_table_kind(const std::string& name) {
  if (name == "scores") return TableKind::scores;
  if (name == "both") return TableKind::both;
  if (name == "none") return TableKind::none;
  return TableKind::probs;
}

// The maps the outputs show: the model's, or under `rollout` the rollout maps (rollout_selection).
HeadSelection shown_selection(const RunArgs& a, const PreparedRun& run) {
  return a.rollout ? rollout_selection(run.selection) : run.selection;
}

TerminalOptions terminal_options(const RunArgs& a, const PreparedRun& run, ColormapId cmap) {
  TerminalOptions t;
  t.model_name = run.model.name;
  t.heatmaps = shown_selection(a, run);
  t.tables = shown_selection(a, run);
  if (!t.tables.head) t.tables.head = 0;
  t.table = parse_table_kind(a.table);
  t.table_style.format = parse_table_format(a.format);
  t.table_style.precision = a.precision;
  t.draw_heatmaps = !a.no_heatmap && t.table_style.format == TableFormat::text;
  if (t.table_style.format == TableFormat::csv && t.table == TableKind::both) {
    throw usage_error("--format csv writes one table: choose --table probs or --table scores");
  }
  const ColorChoice choice = a.color == "always"  ? ColorChoice::always
                             : a.color == "never" ? ColorChoice::never
                                                  : ColorChoice::auto_;
  t.heatmap_style.cmap = cmap;
  t.heatmap_style.color = detect_color_mode(choice, isatty(STDOUT_FILENO) != 0);
  t.heatmap_style.width = resolved_width(a.width);
  t.table_style.color = t.heatmap_style.color;  // value-coloured table cells when colour is on
  t.table_style.cmap = cmap;
  if (t.table_style.format == TableFormat::text) t.table_style.width = t.heatmap_style.width;
  return t;
}

// --log / --linear, else the default (log for causal maps over 32 tokens).
ColourScale colour_scale(const RunArgs& a) {
  return a.log_scale      ? ColourScale::log
         : a.linear_scale ? ColourScale::linear
                          : ColourScale::auto_scale;
}

PngOptions png_options(const RunArgs& a, const PreparedRun& run, ColormapId cmap) {
  PngOptions p;
  p.selection = shown_selection(a, run);
  p.model_name = run.model.name;
  p.style.cmap = cmap;
  p.colour_scale = colour_scale(a);
  p.style.fonts = FontSet::find(a.font);  // before the forward pass: a bad --font fails early
  p.shared_scale = a.scale == "shared";
  p.pool = parse_pool_mode(a.pool);
  p.max_pixels = a.max_pixels;
  p.raw = a.png_raw;
  p.file = a.figure_file;
  if (!a.panel.empty()) {
    p.panel = parse_panel(a.panel);
    check_panel(p.panel, run.maps);
  }
  return p;
}

// The page replaces the file it names: only a .html / .htm name, so a slip (`--html
// model.safetensors`, the --embeddings file) cannot destroy an input, and never the --save file.
void check_html_file(const RunArgs& a) {
  check_output_file(a.html, "--html");
  std::string ext = std::filesystem::path(a.html).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".html" && ext != ".htm") {
    throw usage_error(fmt::format(
        "--html {}: the page's name must end in .html or .htm (it replaces the file it names)",
        a.html));
  }
  const auto same = [&](const std::string& other) {
    std::error_code ec;
    return !other.empty() && (other == a.html || std::filesystem::equivalent(other, a.html, ec));
  };
  if (same(a.save)) throw usage_error(fmt::format("--html {}: the same file as --save", a.html));
  // Any file the run reads (an .html text file, a tokenizer folder's file, …) must survive it.
  const InputArgs& in = a.in;
  for (const std::string& input :
       {in.model, in.tokenizer, in.mask_file, in.model_flags.layout_file, in.target.tokens,
        in.target.ids, in.target.embeddings, in.target.text_file, in.source.tokens, in.source.ids,
        in.source.embeddings, in.source.text_file}) {
    if (same(input))
      throw usage_error(
          fmt::format("--html {}: the run reads this file; give the page another name", a.html));
  }
}

HtmlOptions html_options(const RunArgs& a, const PreparedRun& run, ColormapId cmap) {
  HtmlOptions h;
  h.selection = shown_selection(a, run);
  h.model_name = run.model.name;
  h.cmap = cmap;
  h.colour_scale = colour_scale(a);
  h.max_cells = a.html_cells;
  return h;
}

// csv holds one table: checked before anything runs (prepare_run has checked that the selection
// names maps that exist), so a wrong choice prints nothing but the error.
void check_csv_selection(const PreparedRun& run, const TerminalOptions& t) {
  if (t.table_style.format != TableFormat::csv || t.table == TableKind::none) return;
  const size_t matched = selected_maps(run.selection, run.maps).size();
  if (run.selection.head.indices().size() > 1) {
    throw usage_error(
        fmt::format("--format csv writes one table, but --head selects {} heads: choose one",
                    run.selection.head.indices().size()));
  }
  if (matched > 1) {
    throw usage_error(
        fmt::format("--format csv writes one table, but {} maps are selected: choose one "
                    "with --layer and --site",
                    matched));
  }
}

}  // namespace

void run_command(const RunArgs& a) {
  const ColormapId cmap = weights_colormap(a.cmap);
  // Output places are checked before the model runs: a bad one must not cost the whole run.
  if (a.save_given) check_output_file(a.save, "--save");
  if (a.html_given) check_html_file(a);
  if (a.png_given && a.png_dir.empty()) throw usage_error("--png: the folder name is empty");
  if (!a.panel.empty()) {
    if (a.png_dir.empty())
      throw usage_error("--panel draws into the --png folder: give --png DIR too");
    if (a.rollout)
      throw usage_error(
          "--panel: rollout has one map per layer; --png draws each, --layer picks one");
    parse_panel(a.panel);  // its errors before the model loads
  }
  InputArgs in = a.in;
  if (a.rollout) in.bound = rollout_bound(a);
  const PreparedRun run = prepare_run(in);

  TerminalOptions terminal = terminal_options(a, run, cmap);
  check_csv_selection(run, terminal);
  check_logits_flag(run, a.logits, terminal.table_style.format, terminal.table != TableKind::none);
  if (a.rollout && (terminal.table == TableKind::scores || terminal.table == TableKind::both)) {
    throw usage_error("--table " + a.table +
                      ": rollout maps are products of attention weights, with no scores: "
                      "use --table probs");
  }
  const TableStyle table_style = terminal.table_style;
  const bool prints_maps = terminal.draw_heatmaps || terminal.table != TableKind::none;
  const bool view_tables = terminal.table != TableKind::none;
  SinkList outputs;  // what the maps shown go to: the model's, or the rollout's
  auto terminal_sink = std::make_unique<TerminalSink>(std::cout, std::move(terminal));
  const TerminalSink& view = *terminal_sink;
  outputs.add(std::move(terminal_sink));
  PngSink* png = nullptr;
  if (!a.png_dir.empty()) {
    // The longest side a map can have: the figures' memory is checked against it before the run.
    const int64_t n_tokens = std::max<int64_t>(run.inputs.target.x.rows(),
                                               run.inputs.source ? run.inputs.source->x.rows() : 0);
    auto sink = std::make_unique<PngSink>(a.png_dir, png_options(a, run, cmap), n_tokens);
    png = sink.get();
    outputs.add(std::move(sink));
  }
  HtmlSink* html = nullptr;
  if (!a.html.empty()) {
    auto sink = std::make_unique<HtmlSink>(a.html, html_options(a, run, cmap));
    html = sink.get();
    outputs.add(std::move(sink));
  }
  SaveSink* save = nullptr;
  if (!a.save.empty()) {
    SaveOptions save_options;
    save_options.dtype = parse_save_dtype(a.save_dtype);
    save_options.selection = shown_selection(a, run);
    save_options.model_name = run.model.name;
    save_options.metadata = saved_token_metadata(run);
    auto sink = std::make_unique<SaveSink>(a.save, save_options);
    save = sink.get();
    outputs.add(std::move(sink));
  }
  CheckCollector* check = nullptr;
  NonFiniteMonitor* non_finite = nullptr;  // --check reports NaN / inf itself
  if (a.check) {
    auto sink = std::make_unique<CheckCollector>();
    check = sink.get();
    outputs.add(std::move(sink));
  } else {
    auto sink = std::make_unique<NonFiniteMonitor>();
    non_finite = sink.get();
    outputs.add(std::move(sink));
  }

  // The progress line shares the terminal with stdout only when nothing is printed there per map:
  // a heatmap or table drawn on the same terminal would land inside it (and shows progress itself).
  const bool stdout_per_map = isatty(STDOUT_FILENO) != 0 && prints_maps;
  auto progress = std::make_unique<ProgressSink>(
      std::cerr, isatty(STDERR_FILENO) != 0 && !stdout_per_map, run.maps);
  ProgressSink& progress_line = *progress;
  SinkList model_sinks;  // what forward sends the model's maps to
  if (a.rollout) {
    model_sinks.add(rollout_into(outputs, a, run));
  } else {
    model_sinks.add(std::make_unique<ForwardingSink>(outputs));
  }
  model_sinks.add(std::move(progress));
  // --format json with --logits is one document, {"maps": [tables…], "logits": {…}}: the tables
  // stream into "maps" as they come, the predictions follow after the run.
  const bool json_pair = a.logits > 0 && table_style.format == TableFormat::json && view_tables;
  if (json_pair) std::cout << "{\"maps\": ";
  const ForwardResult result = forward(run.model, run.inputs, run.options, &model_sinks);
  progress_line.finish();  // erased before any warning
  for (const auto& w : result.warnings) std::cerr << "attnviz: warning: " << w << '\n';
  if (save) {
    save->add_tensor("hidden", result.hidden);
    if (result.encoder_hidden) save->add_tensor("encoder.hidden", *result.encoder_hidden);
  }
  outputs.finish();
  if (json_pair) std::cout << (view.printed_json() ? "," : "[],") << "\n\"logits\": ";
  if (a.logits > 0) std::cout << predictions_table(run, result.hidden, a.logits, table_style);
  if (json_pair) std::cout << "}\n";
  std::cout.flush();
  if (png) note_figures_written(png->written().size(), a.png_dir);
  if (non_finite) std::cerr << non_finite->warnings();
  for (const auto& note : view.notes()) std::cerr << "attnviz: warning: " << note << '\n';
  if (html) {
    if (html->maps_written() > 0) {  // one line, as --png gives: what was written, where
      std::cerr << fmt::format("attnviz: wrote {} ({})\n", a.html,
                               count_of(static_cast<long long>(html->maps_written()), "map"));
    }
    for (const auto& note : html->notes()) std::cerr << "attnviz: warning: " << note << '\n';
  }
  if (check) {  // stdout holds the run's output: the findings go to stderr
    for (const auto& f : check->findings()) std::cerr << "attnviz: check: " << f.message() << '\n';
    if (!check->findings().empty()) throw Error(check->summary(), k_exit_check_failed);
  }
}

}  // namespace attnviz
