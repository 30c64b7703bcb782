// The per-head figure: title and caption, query / key labels, cells, colour bar, masked legend.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/error.hpp"
#include "attnviz/core/vector_math.hpp"
#include "attnviz/render/figure.hpp"
#include "figure_parts.hpp"
#include "font.hpp"

namespace attnviz {
namespace {

using namespace detail;

constexpr int k_map_target = 480;  // the map's long side aims for this many pixels
constexpr int k_max_cell = 64;
constexpr int k_gap = 8;
constexpr int k_min_caption_w = 360;  // a caption wraps at this width at the least

int cell_size(const FigureMap& map) {
  const int longest = static_cast<int>(std::max(map.values.rows(), map.values.cols()));
  return std::clamp((k_map_target + longest - 1) / longest, 1, k_max_cell);
}

float px_per_token(const FigureMap& map, int cell) {
  return static_cast<float>(cell) / static_cast<float>(map.pool);
}

void check_map(const FigureMap& map) {
  if (map.values.size() == 0 || map.allowed.rows() != map.values.rows() ||
      map.allowed.cols() != map.values.cols() || map.n_query <= 0 || map.n_key <= 0) {
    throw Error(fmt::format("figure: values [{}, {}] and mask [{}, {}] of a {}×{} map disagree",
                            map.values.rows(), map.values.cols(), map.allowed.rows(),
                            map.allowed.cols(), map.n_query, map.n_key));
  }
}

// The layout at `cell` pixels per cell.
HeatmapLayout layout_at(const std::string& title, const FigureMap& map, const FigureStyle& style,
                        const std::string& caption, int cell) {
  const Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  HeatmapLayout l;
  l.cell = cell;
  const float ppt = px_per_token(map, l.cell);
  const int row_w =
      widest(probe, thin_labels(probe, map.query_labels, map.n_query, ppt, max_label_px(style)));
  const int col_h =
      widest(probe, thin_labels(probe, map.key_labels, map.n_key, ppt, max_label_px(style))) + 2;
  const LineMetrics tm = probe.line_metrics(k_title_px), cm = probe.line_metrics(k_caption_px);
  const LineMetrics lm = probe.line_metrics(k_label_px);
  l.title_lines = title_lines(probe, title, style);
  int title_w = 0;
  for (const auto& line : l.title_lines)
    title_w = std::max(title_w, probe.text_width(line, k_title_px));
  l.title = {
      k_margin, k_margin, title_w,
      tm.ascent + tm.descent + (static_cast<int>(l.title_lines.size()) - 1) * tm.line_height};
  // Left of the map: the rotated axis name "queries", the labels, ticks.
  const int left = k_margin + lm.line_height + k_gap;
  l.row_labels = {left, 0, row_w, 0};
  l.map = {left + row_w + k_gap + 2, 0, static_cast<int>(map.values.cols()) * l.cell,
           static_cast<int>(map.values.rows()) * l.cell};
  l.colorbar = {l.map.x + l.map.w + 2 * k_gap + 4, 0, k_bar_w, std::max(l.map.h, bar_min_h(style))};
  const int bar_right = l.colorbar.x + k_bar_w + 8 + probe.text_width("0.0000", k_tick_px);
  const int n_legend = legend_entries(map);
  const int legend_w =
      n_legend > 0
          ? probe.text_width(any_non_finite(map) ? k_non_finite_label : "masked", k_tick_px) +
                k_bar_w + 6
          : 0;
  l.width = std::max({bar_right, l.colorbar.x + legend_w, l.title.x + l.title.w}) + k_margin;
  // The caption wraps between its " · " parts to the figure's width (a narrow figure: at least
  // k_min_caption_w, and wider when one part needs it).
  const int min_caption_w = style.fit_width > 0
                                ? std::min(k_min_caption_w, style.fit_width - 2 * k_margin)
                                : k_min_caption_w;
  l.caption_lines = wrap_caption(probe, caption, std::max(l.width - 2 * k_margin, min_caption_w));
  for (const auto& line : l.caption_lines)
    l.width = std::max(l.width, probe.text_width(line, k_caption_px) + 2 * k_margin);
  const int captions = std::max<int>(1, static_cast<int>(l.caption_lines.size()));
  const int header = l.title.y + l.title.h + k_gap / 2 + captions * cm.line_height + k_gap;
  l.col_labels = {l.map.x, header + lm.line_height, l.map.w, col_h};
  l.map.y = l.col_labels.y + col_h + k_gap;
  l.row_labels.y = l.map.y, l.row_labels.h = l.map.h;
  l.colorbar.y = l.map.y;
  l.height = l.colorbar.y + l.colorbar.h + (n_legend > 0 ? (1 + n_legend) * k_bar_w : 0) + k_margin;
  l.height = std::max(l.height, l.map.y + l.map.h + k_margin);
  return l;
}

}  // namespace

Eigen::Index count_non_finite(const Matrix& values, const MaskMatrix& allowed) {
  // The common case in one vectorised pass over the bits; then allowed cells only are counted.
  if (all_finite(values.data(), static_cast<size_t>(values.size()))) return 0;
  Eigen::Index n = 0;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < values.cols(); ++j)
      n += allowed(i, j) != 0 && !std::isfinite(values(i, j));
  }
  return n;
}

Eigen::Index count_non_finite(const FigureMap& map) {
  return map.non_finite >= 0 ? map.non_finite : count_non_finite(map.values, map.allowed);
}

HeatmapLayout heatmap_figure_layout(const std::string& title, const FigureMap& map,
                                    const FigureStyle& style, const std::string& caption) {
  check_map(map);
  return fitted_layout([&](int cell) { return layout_at(title, map, style, caption, cell); },
                       cell_size(map), k_max_cell, style, title);
}

float text_scale_for_points(double points, const FontSet& fonts) {
  const float em_units = fonts.font(0).em_pixels(k_label_px);  // a unit is 0.72 pt
  return static_cast<float>(points / (em_units * 72.0 / k_units_per_inch));
}

Canvas heatmap_figure(const std::string& title, const std::string& caption, const FigureMap& map,
                      const FigureStyle& style) {
  const HeatmapLayout l = heatmap_figure_layout(title, map, style, caption);
  Canvas canvas(l.width, l.height, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = canvas.line_metrics(k_title_px), cm = canvas.line_metrics(k_caption_px);
  const LineMetrics lm = canvas.line_metrics(k_label_px);
  for (size_t k = 0; k < l.title_lines.size(); ++k) {
    canvas.draw_text(l.title.x, l.title.y + tm.ascent + static_cast<int>(k) * tm.line_height,
                     l.title_lines[k], {.pixel_size = k_title_px, .color = k_text});
  }
  for (size_t k = 0; k < l.caption_lines.size(); ++k) {
    canvas.draw_text(
        l.title.x,
        l.title.y + l.title.h + k_gap / 2 + cm.ascent + static_cast<int>(k) * cm.line_height,
        l.caption_lines[k], {.pixel_size = k_caption_px, .color = k_muted});
  }
  // Axis names: "keys" over the key labels, "queries" rotated along the query labels.
  canvas.draw_text(l.map.x, l.col_labels.y - lm.descent - 2, map.col_axis + " →",
                   {.pixel_size = k_label_px, .color = k_muted});
  // Rotated to read upwards, so "←" points down the query axis.
  canvas.draw_text(k_margin + lm.ascent, l.map.y, "← " + map.row_axis,
                   {.pixel_size = k_label_px,
                    .color = k_muted,
                    .align = TextAlign::end,
                    .direction = TextDirection::up});
  const float ppt = px_per_token(map, l.cell);
  draw_row_labels(canvas,
                  thin_labels(canvas, map.query_labels, map.n_query, ppt, max_label_px(style)),
                  l.map.x - 10, l.map.y, ppt);
  draw_col_labels(canvas, thin_labels(canvas, map.key_labels, map.n_key, ppt, max_label_px(style)),
                  l.map.x, l.map.y - 10, ppt);
  draw_cells(canvas, l.map.x, l.map.y, l.cell, map.values, map.allowed, style);
  canvas.stroke_rect(l.map.x - 1, l.map.y - 1, l.map.w + 2, l.map.h + 2, k_muted);
  draw_cell_values(canvas, l.map.x, l.map.y, l.cell, map, style);
  draw_colorbar(canvas, l.colorbar, style);
  draw_legend(canvas, l.colorbar.x, l.colorbar.y + l.colorbar.h + k_bar_w / 2 + 4, any_masked(map),
              any_non_finite(map));
  return canvas;
}

}  // namespace attnviz
