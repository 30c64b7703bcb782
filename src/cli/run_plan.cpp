// Run's outputs from its flags: resolved before anything loads (resolve_run), built into sinks
// once the model and inputs are known (build_run_outputs).
#include "attnviz/cli/run_plan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "attnviz/analysis/check.hpp"
#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/cli/rollout_maps.hpp"
#include "attnviz/cli/saved_tokens.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/event/panel.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/sinks/html_sink.hpp"
#include "attnviz/sinks/overlay_sink.hpp"
#include "attnviz/sinks/png_sink.hpp"

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

TerminalOptions terminal_options(const RunArgs& a, const RunPlan& plan, const PreparedRun& run) {
  const ColormapId cmap = plan.cmap;
  TerminalOptions t;
  t.model_name = run.model.name;
  t.heatmaps = shown_selection(a, run);
  t.tables = shown_selection(a, run);
  if (!t.tables.head) t.tables.head = 0;
  t.table = plan.table;
  t.table_style.format = plan.format;
  t.table_style.precision = a.precision;
  // --overlay - is the terminal view of an image: it replaces the heatmaps.
  t.draw_heatmaps = !a.no_heatmap && a.overlay != "-" && t.table_style.format == TableFormat::text;
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

PngOptions png_options(const RunArgs& a, const RunPlan& plan, const PreparedRun& run) {
  PngOptions p;
  p.selection = shown_selection(a, run);
  p.model_name = run.model.name;
  p.style.cmap = plan.cmap;
  p.colour_scale = plan.colour_scale;
  p.style.fonts = FontSet::find(a.font);  // before the forward pass: a bad --font fails early
  p.shared_scale = a.scale == "shared";
  p.pool = plan.pool;
  p.max_pixels = a.max_pixels;
  p.raw = a.png_raw;
  p.file = a.figure_file;
  p.panel = plan.panel;
  if (!p.panel.empty()) check_panel(p.panel, run.maps);
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

HtmlOptions html_options(const RunArgs& a, const RunPlan& plan, const PreparedRun& run) {
  HtmlOptions h;
  h.selection = shown_selection(a, run);
  h.model_name = run.model.name;
  h.cmap = plan.cmap;
  h.colour_scale = plan.colour_scale;
  h.max_cells = a.html_cells;
  if (run.picture) {
    const auto& g = run.inputs.target.grid;
    h.picture = HtmlPicture{std::make_shared<const RgbImage>(*run.picture), g.first, g.rows, g.cols,
                            g.patch};
  }
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

RunPlan resolve_run(const RunArgs& a) {
  RunPlan plan;
  plan.cmap = weights_colormap(a.cmap);
  plan.table = parse_table_kind(a.table);
  plan.format = parse_table_format(a.format);
  if (plan.format == TableFormat::csv && plan.table == TableKind::both)
    throw usage_error("--format csv writes one table: choose --table probs or --table scores");
  if (a.rollout && (plan.table == TableKind::scores || plan.table == TableKind::both)) {
    throw usage_error("--table " + a.table +
                      ": rollout maps are products of attention weights, with no scores: "
                      "use --table probs");
  }
  // --log / --linear, else the default (log for causal maps over 32 tokens).
  plan.colour_scale = a.log_scale      ? ColourScale::log
                      : a.linear_scale ? ColourScale::linear
                                       : ColourScale::auto_scale;
  plan.pool = parse_pool_mode(a.pool);
  plan.save_dtype = parse_save_dtype(a.save_dtype);
  // Output places are checked before the model runs: a bad one must not cost the whole run.
  if (a.save_given) check_output_file(a.save, "--save");
  if (a.html_given) check_html_file(a);
  if (a.png_given && a.png_dir.empty()) throw usage_error("--png: the folder name is empty");
  if (!a.panel.empty()) {
    if (a.png_dir.empty() && (a.overlay.empty() || a.overlay == "-")) {
      throw usage_error(
          "--panel draws into the --png folder (heatmaps) or the --overlay folder (on the "
          "image): give --png DIR or --overlay DIR too");
    }
    if (a.rollout)
      throw usage_error(
          "--panel: rollout has one map per layer; --png draws each, --layer picks one");
    plan.panel = parse_panel(a.panel);
  }
  if (a.overlay_given && a.overlay.empty())
    throw usage_error("--overlay: the folder name is empty");
  if (!a.query.empty() && a.overlay.empty())
    throw usage_error("--query names whose attention --overlay draws: give --overlay DIR or - too");
  plan.in = a.in;
  if (a.rollout) plan.in.bound = rollout_bound(a);
  return plan;
}

RunOutputs build_run_outputs(const RunArgs& a, const RunPlan& plan, const PreparedRun& run) {
  TerminalOptions terminal = terminal_options(a, plan, run);
  check_csv_selection(run, terminal);
  RunOutputs out;
  out.table_style = terminal.table_style;
  auto terminal_sink = std::make_unique<TerminalSink>(std::cout, std::move(terminal));
  out.view = terminal_sink.get();
  out.sinks.add(std::move(terminal_sink));
  if (!a.png_dir.empty()) {
    // The longest side a map can have: the figures' memory is checked against it before the run.
    const int64_t n_tokens = std::max<int64_t>(run.inputs.target.x.rows(),
                                               run.inputs.source ? run.inputs.source->x.rows() : 0);
    auto sink = std::make_unique<PngSink>(a.png_dir, png_options(a, plan, run), n_tokens);
    out.png = sink.get();
    out.sinks.add(std::move(sink));
  }
  if (!a.overlay.empty()) {
    if (a.overlay == "-" && plan.format != TableFormat::text && plan.table != TableKind::none) {
      throw usage_error(
          fmt::format("--overlay - draws in the terminal, which --format {} tables "
                      "fill: write the overlays to a folder, or add --table none",
                      a.format));
    }
    if (!run.picture) {
      throw usage_error(
          fmt::format("--overlay draws on the image a vision model reads: give --image "
                      "or --pixels ({} read {})",
                      run.model.name, run.model.config.vision.patch ? "no image" : "tokens"));
    }
    OverlayOptions o;
    const bool terminal = a.overlay == "-";
    if (!terminal) o.dir = a.overlay;
    o.out = &std::cout;
    o.colour = out.table_style.color != ColorMode::none;
    o.columns = out.table_style.width > 0 ? out.table_style.width : 80;  // the heatmaps' width
    o.selection = shown_selection(a, run);
    o.style.cmap = plan.cmap;
    o.style.fonts = FontSet::find(a.font);
    o.file = a.figure_file;
    apply_figure_file(o.style, o.file);
    o.model_name = run.model.name;
    o.picture = std::make_shared<const RgbImage>(*run.picture);
    const auto& g = run.inputs.target.grid;
    o.grid = {g.first, g.rows, g.cols, g.patch};
    o.query = resolve_overlay_query(a.query, run.inputs.target);
    if (!terminal) o.panel = plan.panel;
    if (!o.panel.empty()) check_panel(o.panel, run.maps);
    if (!run.picture_note.empty()) print_note(run.picture_note);
    auto sink = std::make_unique<OverlaySink>(std::move(o));
    out.overlay = sink.get();
    out.sinks.add(std::move(sink));
  }
  if (!a.html.empty()) {
    // The page's image pane draws the picture: how it was made, unless the overlays said so.
    if (run.picture && a.overlay.empty() && !run.picture_note.empty()) print_note(run.picture_note);
    auto sink = std::make_unique<HtmlSink>(a.html, html_options(a, plan, run));
    out.html = sink.get();
    out.sinks.add(std::move(sink));
  }
  if (!a.save.empty()) {
    SaveOptions save_options;
    save_options.dtype = plan.save_dtype;
    save_options.selection = shown_selection(a, run);
    save_options.model_name = run.model.name;
    save_options.metadata = saved_token_metadata(run);
    auto sink = std::make_unique<SaveSink>(a.save, save_options);
    out.save = sink.get();
    out.sinks.add(std::move(sink));
  }
  if (a.check) {
    auto sink = std::make_unique<CheckCollector>();
    out.check = sink.get();
    out.sinks.add(std::move(sink));
  } else {  // --check reports NaN / inf itself
    auto sink = std::make_unique<NonFiniteMonitor>();
    out.non_finite = sink.get();
    out.sinks.add(std::move(sink));
  }
  return out;
}

}  // namespace attnviz
