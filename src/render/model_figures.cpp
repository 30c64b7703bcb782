// The layer × head overview grid of thumbnails, and the mask figure.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "attnviz/core/error.hpp"
#include "attnviz/render/figure.hpp"
#include "figure_parts.hpp"

namespace attnviz {
namespace {

using namespace detail;

constexpr int k_thumb_gap = 6;
constexpr Rgb k_allowed{49, 84, 140};  // the mask figure's "may attend" colour

// A thumbnail's image: cells scaled to fit thumb_px, centred in a thumb_px square.
void draw_thumbnail(Canvas& canvas, int x, int y, int thumb_px, const Thumbnail& t,
                    const FigureStyle& base) {
  const int longest = static_cast<int>(std::max(t.values.rows(), t.values.cols()));
  const int cell = std::max(1, thumb_px / std::max(longest, 1));
  const int w = static_cast<int>(t.values.cols()) * cell,
            h = static_cast<int>(t.values.rows()) * cell;
  FigureStyle style = base;
  style.vmin = t.vmin, style.vmax = t.vmax;
  draw_cells(canvas, x + (thumb_px - w) / 2, y + (thumb_px - h) / 2, cell, t.values, t.allowed,
             style);
  canvas.stroke_rect(x + (thumb_px - w) / 2 - 1, y + (thumb_px - h) / 2 - 1, w + 2, h + 2, k_muted);
}

}  // namespace

Canvas grid_figure(const std::string& title, const std::vector<Thumbnail>& thumbs,
                   const FigureStyle& style, int thumb_px) {
  if (thumbs.empty()) throw Error("grid figure: no maps");
  std::map<int, int> rows, cols;  // layer → row, head → column (in order)
  bool shared = true;
  for (const auto& t : thumbs) {
    rows[t.layer] = 0, cols[t.head] = 0;
    shared = shared && t.vmin == thumbs.front().vmin && t.vmax == thumbs.front().vmax;
  }
  int k = 0;
  for (auto& [layer, r] : rows) r = k++;
  k = 0;
  for (auto& [head, c] : cols) c = k++;
  Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = probe.line_metrics(k_title_px), lm = probe.line_metrics(k_label_px);
  const int left =
      k_margin + probe.text_width(fmt::format("layer {}", rows.rbegin()->first), k_label_px) + 8;
  const int top = k_margin + tm.line_height + 2 * lm.line_height + 4;
  const int step = thumb_px + k_thumb_gap;
  const int grid_w = static_cast<int>(cols.size()) * step,
            grid_h = static_cast<int>(rows.size()) * step;
  const Rect bar{left + grid_w + 12, top, 16, std::max(std::min(grid_h - k_thumb_gap, 320), 120)};
  const int width = std::max(bar.x + 80, k_margin + probe.text_width(title, k_title_px)) + k_margin;
  Canvas canvas(width, std::max(top + grid_h, bar.y + bar.h + 30) + k_margin, Rgb{255, 255, 255},
                style.fonts, style.scale);
  canvas.draw_text(k_margin, k_margin + tm.ascent, title,
                   {.pixel_size = k_title_px, .color = k_text});
  for (const auto& [head, c] : cols) {
    canvas.draw_text(left + c * step + thumb_px / 2, top - lm.descent - 4,
                     fmt::format("head {}", head),
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::center});
  }
  for (const auto& [layer, r] : rows) {
    canvas.draw_text(left - 8, top + r * step + thumb_px / 2 + lm.ascent / 2,
                     fmt::format("layer {}", layer),
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::end});
  }
  for (const auto& t : thumbs) {
    draw_thumbnail(canvas, left + cols[t.head] * step, top + rows[t.layer] * step, thumb_px, t,
                   style);
  }
  FigureStyle bar_style = style;
  bar_style.vmin = thumbs.front().vmin, bar_style.vmax = thumbs.front().vmax;
  if (shared) {
    draw_colorbar(canvas, bar, bar_style);
  } else {  // each thumbnail has its own range: the bar shows the map, not numbers
    bar_style.vmin = 0.0f, bar_style.vmax = 1.0f, bar_style.log = false;
    canvas.draw_colour_bar(bar.x, bar.y, bar.w, bar.h, style.cmap);
    canvas.draw_text(bar.x + bar.w + 6, bar.y + lm.ascent, "head max",
                     {.pixel_size = k_tick_px, .color = k_text});
    canvas.draw_text(bar.x + bar.w + 6, bar.y + bar.h, "0",
                     {.pixel_size = k_tick_px, .color = k_text});
  }
  return canvas;
}

Canvas mask_figure(const std::string& title, const std::string& caption, const FigureMap& axes,
                   const Matrix& allowed_fraction, const FigureStyle& style) {
  // The heatmap figure's layout, its cells redrawn with a two-colour map: white → k_allowed by
  // allowed fraction, masked cells hatched again over them.
  FigureMap map = axes;
  map.values = allowed_fraction;
  FigureStyle plain = style;
  plain.cell_values = false;
  Canvas canvas = heatmap_figure(title, caption, map, plain);
  const HeatmapLayout l = heatmap_figure_layout(title, map, plain, caption);
  auto cells = std::make_shared<Image>();
  cells->width = static_cast<int>(map.values.cols()),
  cells->height = static_cast<int>(map.values.rows());
  cells->rgb.resize(static_cast<size_t>(map.values.size()) * 3);
  for (Eigen::Index i = 0; i < map.values.rows(); ++i) {
    for (Eigen::Index j = 0; j < map.values.cols(); ++j) {
      const float f = map.allowed(i, j) == 0 ? 0.0f : std::clamp(map.values(i, j), 0.0f, 1.0f);
      const auto mix = [f](uint8_t c) { return static_cast<uint8_t>(255 + (c - 255) * f); };
      cells->set(static_cast<int>(j), static_cast<int>(i),
                 Rgb{mix(k_allowed.r), mix(k_allowed.g), mix(k_allowed.b)});
    }
  }
  canvas.draw_cells(l.map.x, l.map.y, l.cell, std::move(cells));
  for (Eigen::Index i = 0; i < map.values.rows(); ++i) {
    for (Eigen::Index j = 0; j < map.values.cols();) {
      Eigen::Index end = j;
      while (end < map.values.cols() && map.allowed(i, end) == 0) ++end;
      if (end > j) {
        canvas.hatch_rect(
            l.map.x + static_cast<int>(j) * l.cell, l.map.y + static_cast<int>(i) * l.cell,
            static_cast<int>(end - j) * l.cell, l.cell, k_hatch_background, k_hatch_stripe);
      }
      j = end + 1;
    }
  }
  // The colour bar becomes a legend: "allowed" over the bar's area.
  canvas.fill_rect(l.colorbar.x - 1, l.colorbar.y - 10, l.width - l.colorbar.x, l.colorbar.h + 20,
                   Rgb{255, 255, 255});
  canvas.fill_rect(l.colorbar.x, l.colorbar.y, 16, 16, k_allowed);
  canvas.draw_text(l.colorbar.x + 22, l.colorbar.y + 13, "allowed",
                   {.pixel_size = k_tick_px, .color = k_text});
  return canvas;
}

}  // namespace attnviz
