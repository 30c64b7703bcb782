// `attnviz run`: load the model, resolve inputs and mask, wire the sinks, run forward, report.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <iostream>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/sinks/png_sink.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "attnviz/sinks/sink_list.hpp"
#include "attnviz/sinks/terminal_sink.hpp"

namespace attnviz {

namespace {

std::optional<float> parse_scale(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "none") return 1.0f;
  float value = 0.0f;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0.0f)) {
    throw usage_error(fmt::format("--scale '{}': expected a positive number or none", text));
  }
  return value;
}

Mask resolve_mask(const RunArgs& a, int n_query, int n_key) {
  Mask mask;
  mask.causal = a.causal;
  if (a.pad > n_key) {
    throw usage_error(fmt::format("--pad {}: there are only {} keys", a.pad, n_key));
  }
  mask.n_pad_keys = a.pad;
  if (!a.mask_file.empty()) mask.matrix = read_mask_file(a.mask_file, n_query, n_key);
  return mask;
}

HeadSelection selection_of(const RunArgs& a) {
  HeadSelection s;
  s.layer = a.layer;
  s.head = a.head;
  if (!a.site.empty()) s.site = a.site == "self" ? Site::self : Site::cross;
  return s;
}

TerminalOptions terminal_options(const RunArgs& a, const std::string& model_name, ColormapId cmap) {
  TerminalOptions t;
  t.heatmap_style.cmap = cmap;
  t.model_name = model_name;
  t.heatmaps = selection_of(a);
  t.tables = selection_of(a);
  if (!t.tables.head) t.tables.head = 0;
  t.table_style.format = parse_table_format(a.format);
  t.table_style.precision = a.precision;
  t.draw_heatmaps = !a.no_heatmap && t.table_style.format == TableFormat::text;
  const TableKind kinds[] = {TableKind::probs, TableKind::scores, TableKind::both, TableKind::none};
  const char* names[] = {"probs", "scores", "both", "none"};
  for (int i = 0; i < 4; ++i) {
    if (a.table == names[i]) t.table = kinds[i];
  }
  if (t.table_style.format == TableFormat::csv && t.table == TableKind::both) {
    throw usage_error("--format csv writes one table: choose --table probs or --table scores");
  }
  const ColorChoice choice = a.color == "always"  ? ColorChoice::always
                             : a.color == "never" ? ColorChoice::never
                                                  : ColorChoice::auto_;
  t.heatmap_style.color = detect_color_mode(choice, isatty(STDOUT_FILENO) != 0);
  t.heatmap_style.width = a.width > 0 ? a.width : terminal_width();
  return t;
}

}  // namespace

void run_command(const RunArgs& a) {
  const bool cross = !a.source_tokens.empty() || !a.source_ids.empty() || !a.source_embeddings.empty();
  const ColormapId cmap = parse_colormap(a.cmap);
  const Model model = load_model(a.model, ConfigOverrides{a.heads});

  ForwardInputs inputs{resolve_sequence(model, a.tokens, a.ids, a.embeddings, "target"), {}, {}};
  if (cross) {
    inputs.source = resolve_sequence(model, a.source_tokens, a.source_ids, a.source_embeddings, "source");
  }
  const int n_query = static_cast<int>(inputs.target.x.rows());
  const int n_key = static_cast<int>(cross ? inputs.source->x.rows() : n_query);
  inputs.mask = resolve_mask(a, n_query, n_key);

  SinkList sinks;
  sinks.add(std::make_unique<TerminalSink>(std::cout, terminal_options(a, model.name, cmap)));
  if (!a.png_dir.empty()) sinks.add(std::make_unique<PngSink>(a.png_dir, selection_of(a), cmap));
  if (!a.save.empty()) sinks.add(std::make_unique<SaveSink>(a.save));

  ForwardOptions options;
  options.scale = parse_scale(a.scale);
  options.block_rows = a.block_rows;
  const ForwardResult result = forward(model, inputs, options, &sinks);
  for (const auto& w : result.warnings) std::cerr << "attnviz: warning: " << w << '\n';
  sinks.finish();
  std::cout.flush();
}

}  // namespace attnviz
