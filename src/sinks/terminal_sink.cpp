// The terminal view: heatmaps and tables printed map by map.
#include "attnviz/sinks/terminal_sink.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace attnviz {

void TerminalSink::begin_map(const MapInfo& info) {
  const bool wanted = (options_.draw_heatmaps && options_.heatmaps.matches(info.id)) ||
                      (options_.table != TableKind::none && options_.tables.matches(info.id));
  current_ = wanted ? std::make_unique<GatheredMap>(info) : nullptr;
}

void TerminalSink::on_block(const AttentionBlock& block) {
  if (current_) current_->add(block);
}

void TerminalSink::end_map(const MapInfo& info) {
  if (!current_) return;
  const std::string title = fmt::format("{} · {} · mask: {}", options_.model_name, info.id.title(),
                                        info.mask->describe());
  if (options_.draw_heatmaps && options_.heatmaps.matches(info.id)) {
    // Colours span [0, this head's largest weight] (the legend says so): a head's pattern stays
    // visible even when its weights are all small, as they are over long inputs.
    HeatmapStyle style = options_.heatmap_style;
    style.vmin = 0.0f;
    style.vmax = std::max(current_->probs.maxCoeff(), 1e-6f);
    out_ << render_heatmap(title, current_->probs, *info.mask, *info.query_labels,
                           *info.key_labels, style)
         << '\n';
  }
  if (options_.table != TableKind::none && options_.tables.matches(info.id)) print_tables(*current_);
  current_.reset();
}

void TerminalSink::print_tables(const GatheredMap& map) {
  const MapInfo& info = map.info;
  auto emit = [&](const std::string& what, const Matrix& values) {
    const std::string title = fmt::format("{} {} · {}", options_.model_name, info.id.title(), what);
    // Coloured backgrounds (colour on only): weights over [0, max]; scores on the diverging map
    // centred on 0 over ± the largest finite |score|.
    TableStyle style = options_.table_style;
    if (&values == &map.scores) {
      const float m = values.array().isFinite().select(values.array().abs(), 0.0f).maxCoeff();
      style.cmap = ColormapId::diverging, style.vmin = -std::max(m, 1e-6f), style.vmax = std::max(m, 1e-6f);
    } else {
      style.vmin = 0.0f, style.vmax = std::max(values.maxCoeff(), 1e-6f);
    }
    std::string text = render_table(title, values, *info.mask, *info.query_labels,
                                    *info.key_labels, style);
    if (options_.table_style.format == TableFormat::json) {
      json_tables_.push_back(std::move(text));
    } else {
      out_ << text;
      if (options_.table_style.format == TableFormat::text ||
          options_.table_style.format == TableFormat::markdown) {
        out_ << '\n';  // a blank line between tables
      }
    }
  };
  if (options_.table == TableKind::scores || options_.table == TableKind::both) {
    emit(fmt::format("scores (q·k × {:.4g})", info.scale), map.scores);
  }
  if (options_.table == TableKind::probs || options_.table == TableKind::both) {
    emit("weights (softmax)", map.probs);
  }
}

void TerminalSink::finish() {
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
