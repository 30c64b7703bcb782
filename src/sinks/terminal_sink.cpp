// The terminal view: heads side by side per (stack, layer, site), or one heatmap per map, and
// tables after the heatmaps of their site.
#include "attnviz/sinks/terminal_sink.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/render/scale_note.hpp"

namespace attnviz {
namespace {

// The JSON fields naming a table's map: stack, layer, site, head and kind.
TableId table_id(const MapInfo& info, TableKind kind) {
  return TableId{info.id.stack, info.id.layer, site_name(info.id.site), info.id.head,
                 kind == TableKind::scores ? "scores" : "probs"};
}

bool same_site(const HeadId& a, const HeadId& b) {
  return a.stack == b.stack && a.layer == b.layer && a.site == b.site;
}

// " · q·k unscaled (not 1/√64)" when --qk-scale changed the softmax, else "".
std::string scale_suffix(const MapInfo& info) {
  const std::string note = score_note(info);
  return note.empty() ? note : " · " + note;
}

// "mha · layer 0 · self · mask: causal" (the stack after the model when there is one).
std::string site_title(const std::string& model_name, const MapInfo& info) {
  const HeadId& id = info.id;
  const std::string stack = id.stack.empty() ? "" : id.stack + " · ";
  return fmt::format("{} · {}layer {} · {} · {}mask: {}{}", model_name, stack, id.layer,
                     site_name(id.site), info.kind.empty() ? "" : info.kind + " · ",
                     info.mask->describe(), scale_suffix(info));
}

}  // namespace

bool TerminalSink::single_heatmap(const MapInfo& info) const {
  return options_.heatmaps.head.indices().size() == 1 || info.n_heads <= 1 || info.n_query == 0 ||
         info.n_key == 0;
}

// Text and Markdown tables (and JSON with --table both) are built whole: past k_max_table_cells
// they are refused before the map is gathered (N = 20,000 would need GBs), with the ways that work.
void TerminalSink::check_table_size(const MapInfo& info) const {
  const int64_t cells = int64_t{info.n_query} * info.n_key;
  if (cells <= k_max_table_cells) return;
  // json streams one kind of table; with --table both it gathers, so the way out is one kind.
  const bool json = options_.table_style.format == TableFormat::json;
  throw usage_error(fmt::format(
      "the table of {} is {}×{} = {} cells, more than the {} a {} table may hold; use {}, --table "
      "none, "
      "or a shorter input",
      map_where(info), info.n_query, info.n_key, cells, k_max_table_cells,
      table_format_name(options_.table_style.format) + std::string(json ? " --table both" : ""),
      json ? "--table probs or --table scores (streamed row by row)"
           : "--format csv or json (streamed row by row)"));
}

void TerminalSink::begin_map(const MapInfo& info) {
  const bool heatmap = options_.draw_heatmaps && options_.heatmaps.matches(info.id);
  const bool table = options_.table != TableKind::none && options_.tables.matches(info.id);
  const TableFormat format = options_.table_style.format;
  stream_ = table && (format == TableFormat::csv ||
                      (format == TableFormat::json && options_.table != TableKind::both));
  if (table && !stream_) check_table_size(info);
  panel_open_ = heatmap && !single_heatmap(info);
  if (panel_open_) add_panel(info);
  const bool gather = (table && !stream_) || (heatmap && !panel_open_);
  current_ = gather ? std::make_unique<GatheredMap>(info) : nullptr;
  if (!stream_) return;
  if (format == TableFormat::csv) {
    out_ << csv_table_header(*info.key_labels, info.n_key);
  } else {  // one JSON array of tables on stdout, as the gathered path prints it
    const TableId id = table_id(info, options_.table);
    out_ << (json_streamed_ == 0 ? "[\n" : ",\n")
         << json_table_begin(table_title(info, options_.table), *info.query_labels,
                             *info.key_labels, info.n_query, info.n_key, &id);
  }
}

void TerminalSink::add_panel(const MapInfo& info) {
  if (group_ && !same_site(group_->info.id, info.id)) flush_group();
  if (!group_) {
    std::vector<std::string> titles;
    for (int h = 0; h < info.n_heads; ++h) {
      if (options_.heatmaps.head.contains(h))
        titles.push_back(fmt::format("head {}", h));  // --head's, else all
    }
    MultiplesPlan plan = plan_multiples(info.n_query, info.n_key, titles, *info.query_labels,
                                        options_.heatmap_style.width);
    group_.emplace(PanelGroup{info, std::move(plan), {}});
  }
  group_->panels.push_back({fmt::format("head {}", info.id.head), PooledMap(group_->plan.grid)});
}

void TerminalSink::on_block(const AttentionBlock& block) {
  if (stream_) {  // one table per map when streaming: probs or scores
    const ConstMatrixRef& values = options_.table == TableKind::scores ? block.scores : block.probs;
    out_ << (options_.table_style.format == TableFormat::csv
                 ? csv_table_rows(values, block.row_begin, *block.info->mask,
                                  *block.info->query_labels, options_.table_style.precision)
                 : json_table_rows(values, block.row_begin, *block.info->mask));
  }
  if (current_) current_->add(block);
  if (panel_open_) group_->panels.back().map.add(block.row_begin, block.probs);
}

void TerminalSink::end_map(const MapInfo& info) {
  if (current_ && !panel_open_ && options_.draw_heatmaps && options_.heatmaps.matches(info.id)) {
    // Colours span [0, this head's largest weight] (the legend says so): a head's pattern stays
    // visible even when its weights are all small, as they are over long inputs.
    HeatmapStyle style = options_.heatmap_style;
    style.vmin = 0.0f;
    style.vmax = finite_max(current_->probs, 1e-6f);
    style.non_finite = !current_->probs.allFinite();
    const std::string title = fmt::format(
        "{} · {} · {}mask: {}{}", options_.model_name, map_where(info),
        info.kind.empty() ? "" : info.kind + " · ", info.mask->describe(), scale_suffix(info));
    out_ << render_heatmap(title, current_->probs, *info.mask, *info.query_labels, *info.key_labels,
                           style)
         << '\n';
  }
  if (stream_ && options_.table_style.format == TableFormat::json) {
    std::string end = json_table_end();
    out_ << end.substr(0, end.size() - 1);  // the array's separator follows, not a newline
    ++json_streamed_;
  }
  if (current_ && !stream_ && options_.table != TableKind::none &&
      options_.tables.matches(info.id)) {
    pending_tables_ += tables_text(*current_);
  }
  current_.reset();
  stream_ = false;
  const bool last_head = info.id.head == info.n_heads - 1;
  if (!group_ || (panel_open_ && last_head)) flush_group();
  panel_open_ = false;
}

// Draws the waiting site's heads (if any), then the tables that belong after them.
void TerminalSink::flush_group() {
  if (group_) {
    // One colour scale for the site's heads, [0, their largest weight], so panels side by side
    // compare and one legend serves them all. Max pooling keeps each head's largest weight.
    HeatmapStyle style = options_.heatmap_style;
    style.vmin = 0.0f;
    style.vmax = 1e-6f;
    for (const auto& panel : group_->panels) {
      const Matrix pooled = panel.map.values(PoolMode::max, CountMatrix());
      style.vmax = finite_max(pooled, style.vmax);
      style.non_finite = style.non_finite || !pooled.allFinite();
    }
    const MapInfo& info = group_->info;
    out_ << render_multiples(site_title(options_.model_name, info), group_->plan, group_->panels,
                             *info.mask, *info.query_labels, *info.key_labels, style)
         << '\n';
    group_.reset();
  }
  out_ << pending_tables_;
  pending_tables_.clear();
}

// "mha · layer 0 · self · head 0 · weights (softmax)", as the heatmap titles (kind: scores or
// probs).
std::string TerminalSink::table_title(const MapInfo& info, TableKind kind) const {
  const std::string what = kind == TableKind::scores
                               ? info.additive ? std::string("scores (v·tanh(W s + U h) + b)")
                                               : fmt::format("scores (q·k × {:.4g})", info.scale)
                           : info.kind.empty() ? "weights (softmax)" + scale_suffix(info)
                                               : info.kind;
  return fmt::format("{} · {} · {}", options_.model_name, map_where(info), what);
}

std::string TerminalSink::tables_text(const GatheredMap& map) {
  const MapInfo& info = map.info;
  std::string text;
  auto emit = [&](TableKind kind, const Matrix& values) {
    const std::string title = table_title(info, kind);
    // Coloured backgrounds (colour on only): weights over [0, max]; scores on the diverging map
    // centred on 0 over ± the largest finite |score|.
    TableStyle style = options_.table_style;
    if (kind == TableKind::scores) {
      const float m = values.array().isFinite().select(values.array().abs(), 0.0f).maxCoeff();
      style.cmap = ColormapId::diverging, style.vmin = -std::max(m, 1e-6f),
      style.vmax = std::max(m, 1e-6f);
    } else {
      style.vmin = 0.0f, style.vmax = finite_max(values, 1e-6f);
    }
    const TableId id = table_id(info, kind);
    std::string note;
    std::string table = render_table(title, values, *info.mask, *info.query_labels,
                                     *info.key_labels, style, &id, &note);
    if (!note.empty()) notes_.push_back(std::move(note));
    if (options_.table_style.format == TableFormat::json) {
      json_tables_.push_back(std::move(table));
      return;
    }
    text += table;
    if (options_.table_style.format == TableFormat::text ||
        options_.table_style.format == TableFormat::markdown) {
      text += '\n';  // a blank line between tables
    }
  };
  if (options_.table == TableKind::scores || options_.table == TableKind::both) {
    emit(TableKind::scores, map.scores);
  }
  if (options_.table == TableKind::probs || options_.table == TableKind::both) {
    emit(TableKind::probs, map.probs);
  }
  return text;
}

void TerminalSink::finish() {
  flush_group();
  if (json_streamed_ > 0) out_ << "\n]\n";
  if (options_.table_style.format != TableFormat::json || json_tables_.empty()) return;
  out_ << "[\n";
  for (size_t i = 0; i < json_tables_.size(); ++i) {
    std::string t = json_tables_[i];
    while (!t.empty() && t.back() == '\n') t.pop_back();
    out_ << t << (i + 1 < json_tables_.size() ? ",\n" : "\n");
  }
  out_ << "]\n";
  out_.flush();
}

}  // namespace attnviz
