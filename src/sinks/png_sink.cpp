// --png: pools each selected map as its blocks arrive, then queues its figure, raw image, mask
// figure and grid thumbnail to the writer pool.
#include "attnviz/sinks/png_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/render/scale_note.hpp"

namespace attnviz {
namespace {

constexpr int k_thumb_cells = 96;  // grid thumbnails: at most this many cells per side

std::string group_name(const HeadId& id) {
  return (id.stack.empty() ? "" : id.stack + ".") + site_name(id.site);
}

MaskMatrix allowed_of(const CountMatrix& counts) {
  return (counts.array() > 0).cast<uint8_t>();
}

// The caption's statement of how the picture was made: the reader of a paper needs it.
std::string caption(const MapInfo& info, const PngOptions& o, const FigureMap& map, float vmax,
                    Eigen::Index allowed, bool log) {
  const Eigen::Index non_finite = count_non_finite(map);
  // A head with no finite weight has no colour range to state.
  const float top = o.shared_scale ? 1.0f : vmax;
  const std::string span = log ? fmt::format("log [{:.3g}, {:.3g}]", top * k_log_floor, top)
                               : fmt::format("[0, {:.3g}]", top);
  const std::string range = o.shared_scale          ? span + " shared"
                            : non_finite == allowed ? "none (no finite weight)"
                                                    : span + " head max";
  std::string s = fmt::format("{}mask: {} · {}×{} tokens · colour {}",
                              info.kind.empty() ? "" : info.kind + " · ", info.mask->describe(),
                              info.n_query, info.n_key, range);
  if (non_finite > 0) s += fmt::format(" · {} NaN/inf (magenta)", count_of(non_finite, "cell"));
  if (log && o.colour_scale == ColourScale::auto_scale) {
    s += fmt::format(" · log: the default for causal maps over {} tokens (--linear)",
                     k_auto_log_tokens);
  }
  if (const std::string note = score_note(info); !note.empty()) s += " · " + note;
  if (map.pool > 1) {
    s += fmt::format(" · {}-pooled {}×{} tokens per cell", pool_mode_name(o.pool), map.pool,
                     map.pool);
  }
  return s;
}

}  // namespace

uint64_t figure_memory(int64_t n_tokens, int max_pixels, const FigureFile& file, int threads) {
  const int64_t n = std::max<int64_t>(n_tokens, 1), pool = (n + max_pixels - 1) / max_pixels;
  const auto cells = static_cast<uint64_t>((n + pool - 1) / pool);
  const double pixels_per_cell = std::pow(std::max(figure_scale(file).pixels, 1.0f), 2.0f);
  const double queued = sizeof(float) + 1;                    // a figure's cells and mask
  const double drawn = queued + 3 * pixels_per_cell + 3 + 3;  // + canvas, drawing's image, PNG rows
  const double per_cell = 2 * sizeof(float) + 2.0 * threads * queued + threads * drawn;
  return static_cast<uint64_t>(static_cast<double>(cells * cells) * per_cell);
}

PngSink::PngSink(std::filesystem::path dir, PngOptions options, int64_t n_tokens)
    : dir_(std::move(dir)), options_(std::move(options)) {
  if (options_.max_pixels < 16) throw usage_error("--max-pixels must be at least 16");
  // Large figures are drawn by fewer writers, so that they fit the limit; only what one writer
  // alone cannot draw within it is refused.
  int threads = options_.threads > 0
                    ? options_.threads
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  while (threads > 1 && figure_memory(n_tokens, options_.max_pixels, options_.file, threads) >
                            k_max_figure_memory) {
    --threads;
  }
  if (const uint64_t need = figure_memory(n_tokens, options_.max_pixels, options_.file, 1);
      need > k_max_figure_memory) {
    throw usage_error(fmt::format(
        "--max-pixels {}: the figures of {} tokens per side would need about {:.1f} GiB with one "
        "writer, "
        "more than the {} GiB limit: give a smaller --max-pixels (longer maps are pooled to it)",
        options_.max_pixels, n_tokens, static_cast<double>(need) / (1 << 30),
        k_max_figure_memory >> 30));
  }
  options_.threads = threads;
  apply_figure_file(options_.style, options_.file);
  if (options_.style.fit_width > 0) {
    // --size: pooled to cells that fit it, leaving room for labels and the colour bar (a figure
    // that still does not fit says so, naming --max-pixels).
    const int room = std::min(options_.style.fit_width, options_.style.fit_height) - 250;
    options_.max_pixels = std::clamp(room, 16, options_.max_pixels);
  }
  panel_maps_.resize(options_.panel.size());
  panel_what_.resize(options_.panel.size());
  staged_ = std::make_unique<StagedDir>(dir_);
  writer_ = std::make_unique<FigureWriter>(options_.threads);
}

void PngSink::submit(const std::string& stem, std::function<Canvas()> draw) {
  const std::string name = stem + std::string(figure_extension(options_.file.format));
  submit_file(
      name, [draw = std::move(draw), file = options_.file] { return encode_figure(draw(), file); });
}

void PngSink::submit_file(const std::string& name, std::function<std::string()> render) {
  writer_->submit(staged_->staging_path() / name, std::move(render));
  written_.push_back(dir_ / name);
}

const PngSink::Counts& PngSink::counts_for(const MapInfo& info, const PoolGrid& grid) {
  if (counts_.counts && counts_.mask == info.mask && counts_.grid.n_query == grid.n_query &&
      counts_.grid.n_key == grid.n_key && counts_.grid.pool == grid.pool) {
    return counts_;
  }
  Counts c;
  c.mask = info.mask;
  c.grid = grid;
  c.counts = std::make_shared<const CountMatrix>(allowed_counts(*info.mask, grid));
  c.allowed = std::make_shared<const MaskMatrix>(allowed_of(*c.counts));
  c.n_allowed = (c.allowed->array() != 0).count();
  c.thumb_factor = (std::max(grid.cells_q, grid.cells_k) + k_thumb_cells - 1) / k_thumb_cells;
  c.thumb_counts = std::make_shared<const CountMatrix>(coarsen_counts(*c.counts, c.thumb_factor));
  c.thumb_allowed = std::make_shared<const MaskMatrix>(allowed_of(*c.thumb_counts));
  counts_ = std::move(c);
  return counts_;
}

void PngSink::begin_map(const MapInfo& info) {
  current_.reset();
  current_selected_ = options_.selection.matches(info.id);
  current_panel_ = -1;
  for (size_t k = 0; k < options_.panel.size(); ++k) {
    const HeadId& p = options_.panel[k];
    if (p.stack == info.id.stack && p.layer == info.id.layer && p.site == info.id.site &&
        p.head == info.id.head) {
      current_panel_ = static_cast<int>(k);
    }
  }
  if (!current_selected_ && current_panel_ < 0) return;
  int max_pixels = options_.max_pixels;
  if (current_panel_ >= 0 && options_.style.fit_width > 0) {
    // --size: a panel's maps share its width, each beside labels and a gap (the map's own figure,
    // when it has one, is drawn from the same cells).
    const int n = static_cast<int>(options_.panel.size());
    const int room =
        std::min((options_.style.fit_width - 200) / n - 40, options_.style.fit_height - 250);
    max_pixels = std::clamp(room, 16, max_pixels);
  }
  const PoolGrid grid = PoolGrid::for_map(info.n_query, info.n_key, max_pixels);
  current_.emplace(grid, options_.pool == PoolMode::mean);
  const std::string group = group_name(info.id);
  if (current_selected_ && !info.mask->is_none() && mask_written_[group] != info.mask) {
    mask_written_[group] = info.mask;
    write_mask_figure(info, grid);
  }
}

void PngSink::on_block(const AttentionBlock& block) {
  if (current_) current_->add(block.row_begin, block.probs, block.info->mask.get());
}

void PngSink::write_mask_figure(const MapInfo& info, const PoolGrid& grid) {
  const CountMatrix& counts = *counts_for(info, grid).counts;
  FigureMap axes;
  axes.allowed = *counts_.allowed;
  axes.pool = grid.pool;
  axes.n_query = grid.n_query, axes.n_key = grid.n_key;
  axes.query_labels = *info.query_labels, axes.key_labels = *info.key_labels;
  Matrix fraction = counts.cast<float>();
  for (Eigen::Index i = 0; i < fraction.rows(); ++i) {
    for (Eigen::Index j = 0; j < fraction.cols(); ++j) {  // pairs in the cell (edges hold fewer)
      const int rows = std::min(grid.pool, grid.n_query - static_cast<int>(i) * grid.pool);
      const int cols = std::min(grid.pool, grid.n_key - static_cast<int>(j) * grid.pool);
      fraction(i, j) /= static_cast<float>(rows * cols);
    }
  }
  HeadId layer_id = info.id;
  const std::string title = fmt::format(
      "{} · {} · mask: {}", options_.model_name,
      layer_id.title().substr(0, layer_id.title().rfind(" · head")), info.mask->describe());
  const std::string cap = grid.pool > 1
                              ? fmt::format("{}×{} tokens per cell, shaded by the allowed fraction",
                                            grid.pool, grid.pool)
                              : fmt::format("{}×{} tokens", grid.n_query, grid.n_key);
  submit(fmt::format("{}.mask", info.id.map_name()),
         [title, cap, axes = std::move(axes), fraction = std::move(fraction),
          style = options_.style] { return mask_figure(title, cap, axes, fraction, style); });
}

void PngSink::end_map(const MapInfo& info) {
  if (!current_) return;
  const PoolGrid grid = current_->grid();
  const Counts& counts = counts_for(info, grid);
  const std::string base = fmt::format("{}.head{}", info.id.map_name(), info.id.head);
  // The grid's thumbnail first (this map pooled further to ≤ k_thumb_cells per side): then the
  // cells can be moved into the figure. Its range is set below, with the figure's.
  Thumbnail thumb{
      info.id.layer,
      info.id.head,
      current_->coarsened(counts.thumb_factor).values(options_.pool, *counts.thumb_counts),
      *counts.thumb_allowed,
      0.0f,
      1.0f};
  FigureMap map;
  map.values = std::move(*current_).take_values(options_.pool, *counts.counts);
  current_.reset();
  map.allowed = *counts.allowed;
  map.pool = grid.pool;
  map.n_query = grid.n_query, map.n_key = grid.n_key;
  map.query_labels = *info.query_labels, map.key_labels = *info.key_labels;
  map.non_finite =
      count_non_finite(map.values, map.allowed);  // once, for the caption and the figure
  FigureStyle style = options_.style;
  style.vmin = 0.0f;
  // per-head: [0, this head's largest weight], so a head whose weights are all small over a long
  // input still shows its pattern; shared: the fixed range of probabilities, comparable across
  // heads without holding every map.
  style.vmax = options_.shared_scale ? 1.0f : finite_max(map.values, 1e-6f);
  style.log = log_scale_for(info, options_.colour_scale);
  if (current_panel_ >= 0) {
    // Each map's mask, size and pooling: one statement when they agree, else one per map.
    std::string what =
        fmt::format("mask: {} · {}×{} tokens", info.mask->describe(), info.n_query, info.n_key);
    if (grid.pool > 1)
      what += fmt::format(" · {}-pooled {}×{} tokens per cell", pool_mode_name(options_.pool),
                          grid.pool, grid.pool);
    panel_what_[static_cast<size_t>(current_panel_)] = what;
    panel_log_ = panel_log_ && style.log;
    panel_maps_[static_cast<size_t>(current_panel_)] = PanelMap{panel_name(info.id), map};
  }
  if (!current_selected_) return;
  thumb.vmin = style.vmin, thumb.vmax = style.vmax;
  grid_log_.try_emplace(group_name(info.id), style.log);
  grids_[group_name(info.id)].push_back(std::move(thumb));

  if (options_.raw) {
    Mask cells;  // the pooled allowed matrix as a file mask, for heatmap_image
    cells.matrix = map.allowed;
    // Always a PNG: a bare raster, a pixel block per cell.
    submit_file(base + ".raw.png", [values = map.values, cells, style, dpi = options_.file.dpi] {
      if (!style.log)
        return encode_png(heatmap_image(values, cells, style.cmap, style.vmin, style.vmax), dpi);
      // the figure's log positions (NaN/inf kept, drawn as such)
      const Matrix positions = values.unaryExpr(
          [&style](float v) { return std::isfinite(v) ? figure_position(v, style) : v; });
      return encode_png(heatmap_image(positions, cells, style.cmap, 0.0f, 1.0f), dpi);
    });
  }
  const std::string title = fmt::format("{} · {}", options_.model_name, map_where(info));
  // The caption reads the map: made before the map moves into the job (the order of init-captures
  // is not the order they are written in).
  std::string cap = caption(info, options_, map, style.vmax, counts_.n_allowed, style.log);
  submit(base, [title, cap = std::move(cap), map = std::move(map), style] {
    return heatmap_figure(title, cap, map, style);
  });
}

void PngSink::write_panel() {
  std::vector<PanelMap> panels;
  float vmax = 0.0f;
  for (size_t k = 0; k < panel_maps_.size(); ++k) {
    if (!panel_maps_[k]) {
      throw Error(fmt::format("--panel: {} was not computed (no such map on this input)",
                              panel_name(options_.panel[k])));
    }
    vmax = std::max(vmax, finite_max(panel_maps_[k]->map.values, 1e-6f));
    panels.push_back(std::move(*panel_maps_[k]));
  }
  FigureStyle style = options_.style;
  style.vmin = 0.0f;
  style.vmax = options_.shared_scale ? 1.0f : vmax;
  style.log = panel_log_;
  std::string names;
  for (const auto& p : panels) names += (names.empty() ? "" : ", ") + p.name;
  const std::string span =
      style.log ? fmt::format("log [{:.3g}, {:.3g}]", style.vmax * k_log_floor, style.vmax)
                : fmt::format("[0, {:.3g}]", style.vmax);
  std::string what = panel_what_.front();
  for (const auto& w : panel_what_) {
    if (w != panel_what_.front()) {
      what.clear();
      for (size_t k = 0; k < panels.size(); ++k)
        what += (k ? " · " : "") + panels[k].name + " " + panel_what_[k];
      break;
    }
  }
  std::string cap = fmt::format("{} · colour {} {}", what, span,
                                options_.shared_scale ? "shared" : "max of the panel's heads");
  if (style.log && options_.colour_scale == ColourScale::auto_scale) {
    cap += fmt::format(" · log: the default for causal maps over {} tokens (--linear)",
                       k_auto_log_tokens);
  }
  const std::string title = fmt::format("{} · {}", options_.model_name, names);
  submit("panel", [title, cap, panels = std::move(panels), style] {
    return panel_figure(title, cap, panels, style);
  });
}

void PngSink::finish() {
  if (!options_.panel.empty()) write_panel();
  for (auto& [group, thumbs] : grids_) {
    const std::string title =
        fmt::format("{} · {}-attention · layers × heads", options_.model_name, group);
    FigureStyle style = options_.style;
    style.log = grid_log_[group];
    submit(group + ".grid", [title, thumbs = std::move(thumbs), style] {
      return grid_figure(title, thumbs, style);
    });
  }
  grids_.clear();
  writer_->wait();
  staged_->commit();  // the figure set appears whole; a failed or interrupted run leaves none
}

}  // namespace attnviz
