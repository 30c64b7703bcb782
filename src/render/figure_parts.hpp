// Internal parts shared by the figures: font sizes, cells through the colour map, thinned and
// rotated axis labels.
#pragma once

#include <string>
#include <vector>

#include "attnviz/render/canvas.hpp"
#include "attnviz/render/figure.hpp"

namespace attnviz::detail {

inline constexpr int k_margin = 16;
inline constexpr float k_title_px = 17.0f;
inline constexpr float k_caption_px = 12.0f;
inline constexpr float k_label_px = 12.0f;
inline constexpr float k_tick_px = 11.0f;
inline constexpr int k_max_label_px = 150;  // longer token labels are cut with "…"
inline constexpr Rgb k_text{30, 30, 30};
inline constexpr Rgb k_muted{100, 100, 100};
inline constexpr int k_bar_w = 16;  // colour bar width, and a legend swatch's side
inline constexpr const char* k_non_finite_label = "NaN / inf";

// The tokens that get a label along an axis of n tokens drawn at px_per_token pixels each: every
// `step`-th, where step keeps labels a line apart. Thinned labels carry their index ("128 cat").
struct AxisLabels {
  std::vector<int> tokens;
  std::vector<std::string> texts;
  int step = 1;
};
AxisLabels thin_labels(const Canvas& canvas, const std::vector<std::string>& labels, int n,
                       float px_per_token, int max_label = k_max_label_px);
// Longer token labels are cut with "…": at k_max_label_px, or under --size 64.
inline int max_label_px(const FigureStyle& style) {
  return style.fit_width > 0 ? 64 : k_max_label_px;
}
// The colour bar's least height: 160, or under --size 64 (a small map's bar then as tall as it).
inline int bar_min_h(const FigureStyle& style) {
  return style.fit_width > 0 ? 64 : 160;
}
// The --size error: what the figure needs at one pixel per cell.
[[noreturn]] void throw_too_small(int width, int height, const FigureStyle& style,
                                  const std::string& what);
// The layout make(cell) at `natural` pixels per cell; with FigureStyle::fit (--size), the largest
// cell in [1, max_cell] whose layout fits it, the layout then taking the whole size (the rest
// blank). Throws usage Error when even one pixel per cell does not fit.
template <class Make>
auto fitted_layout(Make make, int natural, int max_cell, const FigureStyle& style,
                   const std::string& what) -> decltype(make(1)) {
  if (style.fit_width <= 0 || style.fit_height <= 0) return make(natural);
  const auto fits = [&](const auto& l) {
    return l.width <= style.fit_width && l.height <= style.fit_height;
  };
  auto best = make(1);
  if (!fits(best)) throw_too_small(best.width, best.height, style, what);
  for (int lo = 1, hi = max_cell; lo < hi;) {  // layouts grow with the cell: the last that fits
    const int mid = (lo + hi + 1) / 2;
    auto l = make(mid);
    if (fits(l)) {
      lo = mid, best = std::move(l);
    } else {
      hi = mid - 1;
    }
  }
  best.width = style.fit_width, best.height = style.fit_height;
  return best;
}
// Widest label in pixels.
int widest(const Canvas& canvas, const AxisLabels& labels);
// Query labels right-aligned against x_right, centred on their rows from y_top.
void draw_row_labels(Canvas& canvas, const AxisLabels& labels, int x_right, int y_top,
                     float px_per_token);
// Key labels rotated to read upwards, starting just above y_bottom, centred on their columns.
void draw_col_labels(Canvas& canvas, const AxisLabels& labels, int x_left, int y_bottom,
                     float px_per_token);
// Cells as cell × cell squares at rect's top left; masked cells hatched.
void draw_cells(Canvas& canvas, int x, int y, int cell, const Matrix& values,
                const MaskMatrix& allowed, const FigureStyle& style);
// A short number for ticks and cells: 0.25, 1e-03, 12.5.
std::string format_value(float v);
// Colour-bar ticks: multiples of a 1-2-5 step, 3 to 6 of them, in [lo, hi] (linear); each power of
// ten in [lo, hi] (log), written 10⁻³ by format_power.
std::vector<float> linear_ticks(float lo, float hi);
std::vector<float> log_ticks(float lo, float hi);
std::string format_power(float v);

// Masked cells, and allowed cells holding NaN or ±inf (drawn magenta), of a drawn map.
bool any_masked(const FigureMap& map);
bool any_non_finite(const FigureMap& map);
// Legend entries under the colour bar: a swatch and its meaning, one per line.
int legend_entries(const FigureMap& map);
// Each value printed in its cell (x, y: the map's top left) when a formatted value fits: small,
// unpooled maps only, and only with style.cell_values.
void draw_cell_values(Canvas& canvas, int x, int y, int cell, const FigureMap& map,
                      const FigureStyle& style);
// The "masked" and "NaN / inf" swatches from (x, y) down, those asked for; returns the y below
// them.
int draw_legend(Canvas& canvas, int x, int y, bool masked, bool non_finite);

// A caption's " · " parts joined into lines no wider than `width` (a part wider than that alone).
std::vector<std::string> wrap_caption(const Canvas& canvas, const std::string& caption, int width,
                                      float pixel_size = k_caption_px);
// The title's lines: the title whole, or under --size wrapped between its " · " parts to fit_width,
// a part wider than that (a long model name) cut with "…".
inline std::vector<std::string> title_lines(const Canvas& canvas, const std::string& title,
                                            const FigureStyle& style) {
  if (style.fit_width <= 0) return {title};
  std::vector<std::string> lines =
      wrap_caption(canvas, title, style.fit_width - 2 * k_margin, k_title_px);
  for (auto& line : lines) line = canvas.fit_text(line, k_title_px, style.fit_width - 2 * k_margin);
  return lines;
}

}  // namespace attnviz::detail
