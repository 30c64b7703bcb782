// `attnviz diff A.safetensors B.safetensors`: two runs' saved maps compared head by head, ranked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "attnviz/analysis/map_diff.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/diff_plan.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/cli/selection_flags.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/core/row_list.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/pooled_map.hpp"
#include "attnviz/reports/diff_report.hpp"
#include "diff_runs.hpp"
#include "diff_saved_maps.hpp"

namespace attnviz {

namespace {

using detail::both_labels;
using detail::head_map;
using detail::label_note;
using detail::labels;
using detail::map_id;
using detail::saved_heads;
using detail::saved_maps;
using detail::slot_of;

constexpr int k_default_figures = 6;

// Per figure cell, how many of its (query, key) pairs either run allows: a pair is masked when its
// saved score is −inf in A and in B (both 0 weights by the mask, not an unchanged weight). Maps
// without scores (rollouts) count every pair.
CountMatrix diff_allowed_counts(const DiffRow& row, const SafetensorsFile& fa,
                                const SafetensorsFile& fb, int slot, const PoolGrid& grid) {
  CountMatrix counts = CountMatrix::Zero(grid.cells_q, grid.cells_k);
  const std::string scores = row.map + ".scores";
  const bool has_scores = fa.find(scores) != nullptr && fb.find(scores) != nullptr;
  const std::vector<float> sa = has_scores ? head_map(fa, scores, slot) : std::vector<float>{};
  const std::vector<float> sb = has_scores ? head_map(fb, scores, slot) : std::vector<float>{};
  const auto masked = [](float s) { return std::isinf(s) && s < 0; };
  for (int64_t i = 0; i < row.n_query; ++i) {
    for (int64_t j = 0; j < row.n_key; ++j) {
      const auto at = static_cast<size_t>(i * row.n_key + j);
      if (has_scores && masked(sa[at]) && masked(sb[at])) continue;
      ++counts(i / grid.pool, j / grid.pool);
    }
  }
  return counts;
}

// One head's B − A figure, drawn (and written later, with the others).
Canvas draw_diff_figure(const DiffRow& row, const SafetensorsFile& fa, const SafetensorsFile& fb,
                        int slot, int max_pixels, const std::string& title,
                        const FigureFile& file) {
  const std::vector<float> a = head_map(fa, row.map + ".probs", slot),
                           b = head_map(fb, row.map + ".probs", slot);
  const int64_t nq = row.n_query, nk = row.n_key;
  Matrix delta(nq, nk);
  for (int64_t i = 0; i < nq * nk; ++i)
    delta.data()[i] = b[static_cast<size_t>(i)] - a[static_cast<size_t>(i)];
  FigureMap map;
  map.n_query = static_cast<int>(nq), map.n_key = static_cast<int>(nk);
  map.query_labels = both_labels(fa, fb, row.map, ".query_labels", nq);
  map.key_labels = both_labels(fa, fb, row.map, ".key_labels", nk);
  const PoolGrid grid = PoolGrid::for_map(map.n_query, map.n_key, max_pixels);
  const CountMatrix counts = diff_allowed_counts(row, fa, fb, slot, grid);
  if (grid.pool >
      1) {  // signed values: mean pooling (a max would keep only one sign); masked pairs add 0
    PooledMap pooled(grid);
    pooled.add(0, delta);
    map.values = pooled.values(PoolMode::mean, counts);
  } else {
    map.values = std::move(delta);
  }
  map.pool = grid.pool;
  map.allowed = (counts.array() > 0).cast<uint8_t>();
  FigureStyle style;
  style.cmap = ColormapId::diverging;
  const float m = std::isfinite(row.diff.max_abs) && row.diff.max_abs > 0
                      ? static_cast<float>(row.diff.max_abs)
                      : 1e-6f;
  style.vmin = -m, style.vmax = m;
  apply_figure_file(style, file);
  std::string caption = fmt::format(
      "B − A · colour [−{0:.3g}, {0:.3g}], 0 at the centre · JSD {1:.3g} bits · max |Δ| {2:.3g}", m,
      row.diff.jsd, row.diff.max_abs);
  if (grid.pool > 1) caption += fmt::format(" · mean-pooled {0}×{0} tokens per cell", grid.pool);
  return heatmap_figure(fmt::format("{} · {}", title, row.id.title()), caption, map, style);
}

// The two saved runs compared: path_a and path_b are read; name_a and name_b stand for them in
// messages and titles (the file names, or what an inline run was).
void diff_saved(const DiffArgs& args, const std::string& path_a, const std::string& path_b,
                const std::string& name_a, const std::string& name_b) {
  DiffReportOptions report;
  report.format = parse_table_format(args.format);
  report.precision = args.precision;
  report.sort = args.sort;
  report.top = args.top;
  const SafetensorsFile fa = SafetensorsFile::open(path_a), fb = SafetensorsFile::open(path_b);
  const HeadSelection selection = selection_of(args.in.selection, saved_maps(fa));
  report.title = fmt::format("{} vs {}", name_a, name_b);
  std::vector<DiffRow> rows;
  std::set<std::string> in_a;
  bool labels_noted = false;
  for (const auto& t : fa.tensors()) {
    if (!t.name.ends_with(".probs")) continue;
    const std::string map = t.name.substr(0, t.name.size() - 6);
    in_a.insert(map);
    const HeadId base = map_id(map, name_a);
    const TensorInfo* tb = fb.find(t.name);
    if (!tb) {
      report.notes.push_back(fmt::format("{}: only in A", map));
      continue;
    }
    if (t.shape.size() != 3 || t.shape != tb->shape) {
      throw Error(fmt::format(
          "{}: {} is {} in A and {} in B; maps compare only at the same [heads, queries, keys]{}",
          name_b, t.name, shape_string(t.shape), shape_string(tb->shape),
          args.in.model.empty() ? ""
                                : " (inline: inputs of the same length, e.g. one word changed "
                                  "for a word of as many tokens)"));
    }
    const std::vector<int> heads = saved_heads(fa, map, t.shape[0]),
                           heads_b = saved_heads(fb, map, t.shape[0]);
    if (heads != heads_b) {
      throw Error(fmt::format("{}: {} holds heads {} in A and heads {} in B", name_b, map,
                              format_row_list(heads), format_row_list(heads_b)));
    }
    std::vector<int> slots;
    for (int s = 0; s < t.shape[0]; ++s) {
      HeadId id = base;
      id.head = heads[static_cast<size_t>(s)];
      if (selection.matches(id)) slots.push_back(s);
    }
    if (slots.empty()) continue;
    if (!labels_noted) {
      for (const char* axis : {".query_labels", ".key_labels"}) {
        std::string note = label_note(labels(fa, map, axis), labels(fb, map, axis), map);
        if (note.empty() || labels_noted) continue;
        report.notes.push_back(std::string(axis) == ".key_labels" ? note + " (keys)" : note);
        labels_noted = true;
      }
    }
    const auto kind = [&](const SafetensorsFile& f) {
      const auto it = f.metadata().find(map + ".kind");
      return it == f.metadata().end() ? std::string("attention weights") : it->second;
    };
    if (kind(fa) != kind(fb))
      report.notes.push_back(fmt::format("{}: A holds {}, B holds {}", map, kind(fa), kind(fb)));
    const int64_t nq = t.shape[1], nk = t.shape[2];
    for (const int s : slots) {
      DiffRow row{base, map, static_cast<int>(nq), static_cast<int>(nk), {}};
      row.id.head = heads[static_cast<size_t>(s)];
      row.diff = diff_head(head_map(fa, t.name, s).data(), head_map(fb, t.name, s).data(), nq, nk);
      rows.push_back(row);
    }
  }
  for (const auto& t : fb.tensors()) {
    if (t.name.ends_with(".probs") && !in_a.count(t.name.substr(0, t.name.size() - 6))) {
      report.notes.push_back(fmt::format("{}: only in B", t.name.substr(0, t.name.size() - 6)));
    }
  }
  if (rows.empty()) {
    throw usage_error(fmt::format(
        "{} and {} share no map{}", name_a, name_b,
        selection.layer || selection.site || selection.head ? " the selection keeps" : ""));
  }
  const std::vector<DiffRow> shown = ranked(rows, args.sort, args.top);
  // The figures are drawn before anything is printed or written: one that cannot be drawn (a
  // --size too small) leaves no output behind.
  std::vector<std::pair<std::filesystem::path, Canvas>> figures;
  if (!args.png_dir.empty()) {
    const size_t n =
        args.top > 0 ? shown.size() : std::min<size_t>(shown.size(), k_default_figures);
    for (size_t i = 0; i < n; ++i) {
      const DiffRow& row = shown[i];
      figures.emplace_back(
          figure_path(args.png_dir, fmt::format("{}.head{}.diff", row.map, row.id.head),
                      args.figure_file.format),
          draw_diff_figure(row, fa, fb, slot_of(fa, row.map, row.id.head), args.max_pixels,
                           report.title, args.figure_file));
    }
  }
  std::cout << render_diff(shown, report);
  if (report.format != TableFormat::json) {
    for (const auto& note : report.notes) print_note(note);
  }
  std::cout.flush();
  if (!args.png_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.png_dir, ec);
    if (ec) throw Error(fmt::format("{}: cannot create directory: {}", args.png_dir, ec.message()));
    write_diff_chart(args.png_dir, rows, args.sort, report.title, args.figure_file);
    for (const auto& [path, figure] : figures) write_figure(path, figure, args.figure_file);
    note_figures_written(figures.size() + 1, args.png_dir);
  }
}

void diff_command(const DiffArgs& args) {
  const DiffPlan plan = resolve_diff(args);  // every flag checked: nothing has loaded yet
  if (plan.files) {
    diff_saved(args, args.a, args.b, std::filesystem::path(args.a).filename().string(),
               std::filesystem::path(args.b).filename().string());
    return;
  }
  const detail::InlineRuns runs(args.in, args.run_b);
  diff_saved(args, runs.a().string(), runs.b().string(), runs.name_a(), runs.name_b());
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff",
                                     "compare two runs' maps (two --save files) head by head: "
                                     "Jensen-Shannon divergence, max and mean "
                                     "|B - A|, entropy change; ranked, with difference figures");
  cmd->add_option("A", args->a, "the first run's --save file");
  cmd->add_option("B", args->b, "the second run's --save file, with the same maps");
  // Or the two runs inline: A from the input flags, B the same but for the --b-… flags.
  add_input_flags(*cmd, args->in);
  cmd->get_option("--model")->required(false);
  cmd->add_option("--b-model", args->run_b.model,
                  "inline: B runs this model (F16 against Q4_K, before and after fine-tuning)");
  // B's input flags are the target's under the prefix "b-": each given replaces A's.
  add_sequence_flags(*cmd, args->run_b.target,
                     {.prefix = "b-",
                      .whose = "inline: B's ",
                      .probe = true,
                      .seed_help = "inline: A's --probe with another seed"});
  cmd->add_option("--sort", args->sort,
                  "rank heads by jsd (default), max, mean or entropy (|H(B) - H(A)|)");
  cmd->add_option("--top", args->top, "only the first K heads (and their figures)")
      ->check(positive_number());
  add_table_format_flag(*cmd, args->format, "text, csv, json or markdown");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text, markdown)");
  cmd->add_option(
      "--png", args->png_dir,
      "write difference figures (B - A, diverging colours centred on 0) of the top heads (--top, "
      "else 6) and a layer × head chart of the ranking figure into this folder");
  cmd->add_option("--max-pixels", args->max_pixels,
                  "figures mean-pool longer maps to this many cells per side")
      ->check(CLI::Range(16, 16384));
  add_figure_flags(*cmd, args->figure_flags, true);
  cmd->callback([args, cmd] {
    args->figure_file = figure_file(*cmd, args->figure_flags, {"--max-pixels"});
    for (const auto* option : cmd->get_options()) {
      if (option->count() > 0 && !option->get_positional())
        args->given.push_back(option->get_name());
    }
    diff_command(*args);
  });
}

}  // namespace attnviz
