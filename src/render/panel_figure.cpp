// Chosen heads side by side with one colour bar: the figure a paper shows.
#include <fmt/format.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/render/figure.hpp"
#include "figure_parts.hpp"

namespace attnviz {
namespace {

using namespace detail;

constexpr int k_gap = 8;
constexpr int k_panel_gap = 28;  // between one map and the next panel's labels
constexpr int k_max_cell = 64;

// The long side of each map: smaller as panels are added, so six fit one page width.
int panel_target(size_t panels) {
  return panels <= 2 ? 480 : panels <= 4 ? 360 : 280;
}

bool same_queries(const FigureMap& a, const FigureMap& b) {
  return a.n_query == b.n_query && a.pool == b.pool && a.values.rows() == b.values.rows() &&
         a.query_labels == b.query_labels;
}

struct Placed {
  AxisLabels rows, cols;
  bool row_labels = false;
  Rect map;
  float ppt = 1.0f;
};

struct PanelLayout {
  int cell = 1;
  std::vector<Placed> placed;
  std::vector<std::string> captions, titles;
  int width = 0, height = 0, names_y = 0, map_y = 0;
  Rect bar;
  bool masked = false, non_finite = false;
};

// Where everything goes at `cell` pixels per cell.
PanelLayout panel_layout(const std::string& title, const std::string& caption,
                         const std::vector<PanelMap>& panels, const FigureStyle& style, int cell) {
  const Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = probe.line_metrics(k_title_px), cm = probe.line_metrics(k_caption_px);
  const LineMetrics lm = probe.line_metrics(k_label_px);
  PanelLayout out;
  out.cell = cell;
  std::vector<Placed>& placed = out.placed;
  placed.resize(panels.size());
  int x = k_margin + lm.line_height + k_gap;  // "← queries" runs up the left edge
  int col_h = 0, map_h = 0;
  bool& masked = out.masked;
  bool& non_finite = out.non_finite;
  for (size_t k = 0; k < panels.size(); ++k) {
    const FigureMap& m = panels[k].map;
    Placed& p = placed[k];
    p.ppt = static_cast<float>(cell) / static_cast<float>(m.pool);
    p.row_labels = k == 0 || !same_queries(m, panels[k - 1].map);
    p.cols = thin_labels(probe, m.key_labels, m.n_key, p.ppt, max_label_px(style));
    if (p.row_labels) {
      p.rows = thin_labels(probe, m.query_labels, m.n_query, p.ppt, max_label_px(style));
      x += widest(probe, p.rows) + k_gap + 2;
    }
    p.map = {x, 0, static_cast<int>(m.values.cols()) * cell,
             static_cast<int>(m.values.rows()) * cell};
    x += p.map.w + k_panel_gap;
    col_h = std::max(col_h, widest(probe, p.cols) + 2);
    map_h = std::max(map_h, p.map.h);
    masked = masked || any_masked(m);
    non_finite = non_finite || any_non_finite(m);
  }
  const Rect bar_x{x - k_panel_gap + 2 * k_gap + 4, 0, k_bar_w, std::max(map_h, bar_min_h(style))};
  int width = bar_x.x + k_bar_w + 8 + probe.text_width("0.0000", k_tick_px) + k_margin;
  if (masked || non_finite)
    width = std::max(
        width, bar_x.x + k_bar_w + 6 + probe.text_width(k_non_finite_label, k_tick_px) + k_margin);
  out.titles = title_lines(probe, title, style);
  for (const auto& line : out.titles)
    width = std::max(width, 2 * k_margin + probe.text_width(line, k_title_px));
  const int title_extra =
      (static_cast<int>(out.titles.size()) - 1) * tm.line_height;  // lines past the first
  out.captions = wrap_caption(probe, caption, width - 2 * k_margin);
  const std::vector<std::string>& captions = out.captions;
  for (const auto& line : captions)
    width = std::max(width, probe.text_width(line, k_caption_px) + 2 * k_margin);
  const int header = k_margin + title_extra + tm.ascent + tm.descent + k_gap / 2 +
                     std::max<int>(1, static_cast<int>(captions.size())) * cm.line_height + k_gap;
  out.names_y = header + lm.line_height;  // each panel's name
  const int names_y = out.names_y;
  const int cols_top = names_y + lm.line_height + k_gap / 2;  // key labels below the names
  out.map_y = cols_top + col_h + k_gap;
  const int map_y = out.map_y;
  out.bar = {bar_x.x, map_y, bar_x.w, bar_x.h};
  const Rect& bar = out.bar;
  const int legend_h = (masked ? 1 : 0) + (non_finite ? 1 : 0);
  out.width = width;
  out.height =
      std::max(map_y + map_h, bar.y + bar.h + (legend_h > 0 ? (1 + legend_h) * k_bar_w : 0)) +
      k_margin;
  return out;
}

}  // namespace

Canvas panel_figure(const std::string& title, const std::string& caption,
                    const std::vector<PanelMap>& panels, const FigureStyle& style) {
  if (panels.empty()) throw Error("panel figure: no maps");
  Eigen::Index longest = 1;
  for (const auto& p : panels) {
    if (p.map.values.size() == 0 || p.map.allowed.rows() != p.map.values.rows() ||
        p.map.allowed.cols() != p.map.values.cols()) {
      throw Error(
          fmt::format("panel figure: {} has values and a mask of different shapes", p.name));
    }
    longest = std::max({longest, p.map.values.rows(), p.map.values.cols()});
  }
  const PanelLayout l = fitted_layout(
      [&](int cell) { return panel_layout(title, caption, panels, style, cell); },
      std::clamp(panel_target(panels.size()) / static_cast<int>(longest), 1, k_max_cell),
      k_max_cell, style, title);
  const Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = probe.line_metrics(k_title_px), cm = probe.line_metrics(k_caption_px);
  const LineMetrics lm = probe.line_metrics(k_label_px);
  const int cell = l.cell, map_y = l.map_y, names_y = l.names_y;
  const std::vector<Placed>& placed = l.placed;
  const std::vector<std::string>& captions = l.captions;
  const Rect& bar = l.bar;
  Canvas canvas(l.width, l.height, Rgb{255, 255, 255}, style.fonts, style.scale);
  for (size_t k = 0; k < l.titles.size(); ++k) {
    canvas.draw_text(k_margin, k_margin + tm.ascent + static_cast<int>(k) * tm.line_height,
                     l.titles[k], {.pixel_size = k_title_px, .color = k_text});
  }
  const int title_extra = (static_cast<int>(l.titles.size()) - 1) * tm.line_height;
  for (size_t k = 0; k < captions.size(); ++k) {
    canvas.draw_text(k_margin,
                     k_margin + title_extra + tm.ascent + tm.descent + k_gap / 2 + cm.ascent +
                         static_cast<int>(k) * cm.line_height,
                     captions[k], {.pixel_size = k_caption_px, .color = k_muted});
  }
  canvas.draw_text(k_margin + lm.ascent, map_y, "← queries",
                   {.pixel_size = k_label_px,
                    .color = k_muted,
                    .align = TextAlign::end,
                    .direction = TextDirection::up});
  for (size_t k = 0; k < panels.size(); ++k) {
    const FigureMap& m = panels[k].map;
    const Placed& p = placed[k];
    canvas.draw_text(p.map.x + p.map.w / 2, names_y, panels[k].name,
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::center});
    if (p.row_labels) draw_row_labels(canvas, p.rows, p.map.x - 10, map_y, p.ppt);
    draw_col_labels(canvas, p.cols, p.map.x, map_y - 10, p.ppt);
    draw_cells(canvas, p.map.x, map_y, cell, m.values, m.allowed, style);
    canvas.stroke_rect(p.map.x - 1, map_y - 1, p.map.w + 2, p.map.h + 2, k_muted);
    draw_cell_values(canvas, p.map.x, map_y, cell, m, style);
  }
  draw_colorbar(canvas, bar, style);
  draw_legend(canvas, bar.x, bar.y + bar.h + k_bar_w / 2 + 4, l.masked, l.non_finite);
  return canvas;
}

}  // namespace attnviz
