// The overlay sink: the query's row of each selected head, drawn on the picture as the map ends.
#include "attnviz/sinks/overlay_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "attnviz/core/error.hpp"
#include "attnviz/event/panel.hpp"
#include "attnviz/render/overlay.hpp"

namespace attnviz {

OverlaySink::OverlaySink(OverlayOptions options) : o_(std::move(options)) {
  if (!o_.dir.empty()) staged_.emplace(o_.dir);
  panel_.resize(o_.panel.size());
}

void OverlaySink::begin_map(const MapInfo& info) {
  // Self-attention over the image's tokens only (a derived map, such as a rollout, of them too).
  // A derived map (a rollout) is no one head's: the --layer selection alone picks it.
  const bool self = info.id.site == Site::self && info.n_key == info.n_query;
  selected_ = self && (info.kind.empty() ? o_.selection.matches(info.id)
                                         : o_.selection.layer.contains(info.id.layer));
  panel_index_ = -1;
  for (size_t k = 0; self && info.kind.empty() && k < o_.panel.size(); ++k) {
    const HeadId& p = o_.panel[k];
    if (p.stack == info.id.stack && p.layer == info.id.layer && p.site == info.id.site &&
        p.head == info.id.head)
      panel_index_ = static_cast<int>(k);
  }
  wanted_ = selected_ || panel_index_ >= 0;
  row_.assign(size_t(info.n_key), 0.0);
  rows_added_ = 0;
}

void OverlaySink::on_block(const AttentionBlock& block) {
  if (!wanted_) return;
  const int first = o_.grid.first, last = o_.grid.first + o_.grid.rows * o_.grid.cols;
  for (int r = block.row_begin; r < block.row_end; ++r) {
    const bool take = o_.query.token ? r == *o_.query.token : (r >= first && r < last);
    if (!take) continue;
    const auto p = block.probs.row(r - block.row_begin);
    for (Eigen::Index k = 0; k < p.size(); ++k) row_[size_t(k)] += p[k];
    ++rows_added_;
  }
}

OverlayFigure OverlaySink::figure_of(const MapInfo& info) const {
  const auto& g = o_.grid;
  OverlayFigure f;
  f.image = o_.picture.get();
  f.rows = g.rows, f.cols = g.cols, f.patch = g.patch;
  f.weights.resize(size_t(g.rows) * size_t(g.cols));
  for (size_t i = 0; i < f.weights.size(); ++i)
    f.weights[i] = static_cast<float>(row_[size_t(g.first) + i] / rows_added_);
  double patches = 0;
  for (float w : f.weights) patches += w;
  f.title = fmt::format("{} · {} · query {}", o_.model_name, map_where(info), o_.query.name);
  std::string prefix;
  for (int i = 0; i < g.first; ++i) {
    const auto& labels = *info.key_labels;
    const std::string label = size_t(i) < labels.size() ? labels[size_t(i)] : std::to_string(i);
    prefix += fmt::format("{} {:.3f} · ", label, row_[size_t(i)] / rows_added_);
  }
  f.caption = fmt::format("{}patches {:.3f} (the colour scale spans the patches' weights)", prefix,
                          patches);
  return f;
}

void OverlaySink::end_map(const MapInfo& info) {
  if (!wanted_ || rows_added_ == 0) return;
  OverlayFigure f = figure_of(info);
  if (panel_index_ >= 0) panel_[size_t(panel_index_)] = f;
  if (!selected_) return;
  const std::string stem = info.kind.empty()
                               ? fmt::format("{}.head{}.overlay", info.id.map_name(), info.id.head)
                               : fmt::format("{}.overlay", info.id.map_name());
  if (staged_) {
    write_figure(figure_path(staged_->staging_path(), stem, o_.file.format),
                 overlay_figure(f, o_.style), o_.file);
    if (info.kind.empty()) drawn_.push_back({info.id, std::move(f)});
  } else if (o_.out) {
    *o_.out << terminal_overlay(f, o_.style.cmap, o_.columns, o_.colour) << '\n';
  }
  ++written_;
}

void OverlaySink::write_grid() {
  std::vector<std::pair<std::string, int>> layers;  // (stack, layer), in the order drawn
  std::vector<int> heads;
  for (const auto& d : drawn_) {
    const std::pair<std::string, int> at{d.id.stack, d.id.layer};
    if (std::find(layers.begin(), layers.end(), at) == layers.end()) layers.push_back(at);
    if (std::find(heads.begin(), heads.end(), d.id.head) == heads.end()) heads.push_back(d.id.head);
  }
  std::sort(heads.begin(), heads.end());
  OverlayGridFigure g;
  for (const auto& [stack, layer] : layers)
    g.row_labels.push_back(fmt::format("{}layer {}", stack.empty() ? "" : stack + " ", layer));
  for (int h : heads) g.col_labels.push_back(fmt::format("head {}", h));
  g.cells.assign(layers.size() * heads.size(), nullptr);
  for (const auto& d : drawn_) {
    const auto r = std::find(layers.begin(), layers.end(), std::pair{d.id.stack, d.id.layer});
    const auto c = std::find(heads.begin(), heads.end(), d.id.head);
    g.cells[size_t(r - layers.begin()) * heads.size() + size_t(c - heads.begin())] = &d.figure;
  }
  g.title =
      fmt::format("{} · self-attention of query {} over the patches", o_.model_name, o_.query.name);
  g.caption = "each cell on its own scale: 1 is that head's largest patch weight";
  write_figure(figure_path(staged_->staging_path(), "overlays", o_.file.format),
               overlay_grid_figure(g, o_.style), o_.file);
  ++written_;
}

void OverlaySink::write_panel() {
  OverlayGridFigure g;
  g.row_labels = {""};
  for (size_t k = 0; k < o_.panel.size(); ++k) {
    if (!panel_[k]) {
      throw Error(fmt::format("--panel: {} was not computed (no such map on this input)",
                              panel_name(o_.panel[k])));
    }
    g.col_labels.push_back(panel_name(o_.panel[k]));
    g.cells.push_back(&*panel_[k]);
  }
  g.title = fmt::format("{} · query {}", o_.model_name, o_.query.name);
  g.caption = "each head on its own scale: 1 is its largest patch weight";
  write_figure(figure_path(staged_->staging_path(), "panel.overlay", o_.file.format),
               overlay_grid_figure(g, o_.style), o_.file);
  ++written_;
}

void OverlaySink::finish() {
  if (!staged_) return;
  if (drawn_.size() > 1) write_grid();
  if (!o_.panel.empty()) write_panel();
  staged_->commit();
}

}  // namespace attnviz
