// The overlay sink: the query's row of each selected head, drawn on the picture as the map ends.
#include "attnviz/sinks/overlay_sink.hpp"

#include <fmt/format.h>

#include <ostream>

#include "attnviz/core/error.hpp"
#include "attnviz/render/overlay.hpp"

namespace attnviz {

OverlaySink::OverlaySink(OverlayOptions options) : o_(std::move(options)) {
  if (!o_.dir.empty()) staged_.emplace(o_.dir);
}

void OverlaySink::begin_map(const MapInfo& info) {
  // Self-attention over the image's tokens only (a derived map, such as a rollout, of them too).
  // A derived map (a rollout) is no one head's: the --layer selection alone picks it.
  wanted_ = info.id.site == Site::self && info.n_key == info.n_query &&
            (info.kind.empty() ? o_.selection.matches(info.id)
                               : o_.selection.layer.contains(info.id.layer));
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

void OverlaySink::end_map(const MapInfo& info) {
  if (!wanted_ || rows_added_ == 0) return;
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
  const std::string stem = info.kind.empty()
                               ? fmt::format("{}.head{}.overlay", info.id.map_name(), info.id.head)
                               : fmt::format("{}.overlay", info.id.map_name());
  if (staged_) {
    write_figure(figure_path(staged_->staging_path(), stem, o_.file.format),
                 overlay_figure(f, o_.style), o_.file);
  } else if (o_.out) {
    *o_.out << terminal_overlay(f, o_.style.cmap, o_.columns, o_.colour) << '\n';
  }
  ++written_;
}

void OverlaySink::finish() {
  if (staged_) staged_->commit();
}

}  // namespace attnviz
