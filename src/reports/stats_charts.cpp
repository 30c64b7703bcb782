// Charts of `stats --png`: a layer × head grid of one statistic, and the max-weight histogram
// (scaled vs unscaled), drawn on a Canvas with real text.
#include "attnviz/reports/stats_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "attnviz/core/error.hpp"
#include "attnviz/render/canvas.hpp"

namespace attnviz {

namespace {

constexpr int k_pad = 16;
constexpr int k_cell_w = 72, k_cell_h = 40;
constexpr int k_bar_w = 18;
constexpr float k_title_px = 16.0f, k_label_px = 13.0f, k_value_px = 12.0f;
constexpr Rgb k_black{0, 0, 0}, k_white{255, 255, 255}, k_grey{128, 128, 128},
    k_light{224, 224, 224};

// Black text on light colours, white on dark (Rec. 709 luma).
Rgb text_on(Rgb c) {
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b > 128.0 ? k_black : k_white;
}

std::string value_text(double v) {
  if (!std::isfinite(v)) return "-";
  return std::fabs(v) >= 100.0 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

struct Grid {
  std::vector<std::string> rows;                // map names
  int n_cols = 0;                               // heads
  std::map<std::pair<int, int>, double> cells;  // (row, head) → value
  double vmin = 0.0, vmax = 1.0;
};

Grid make_grid(const std::vector<HeadValue>& heads, bool unit_range) {
  Grid g;
  std::map<std::tuple<std::string, int, int>, int> row_of;
  bool any = false;
  double lo = 0.0, hi = 0.0;
  for (const auto& h : heads) {
    const auto key = std::make_tuple(h.id.stack, h.id.layer, static_cast<int>(h.id.site));
    const auto [it, inserted] = row_of.try_emplace(key, static_cast<int>(g.rows.size()));
    if (inserted) g.rows.push_back(h.id.map_name());
    g.n_cols = std::max(g.n_cols, h.id.head + 1);
    const double v = h.value;
    g.cells[{it->second, h.id.head}] = v;
    if (!std::isfinite(v)) continue;
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  if (!unit_range) {
    g.vmin = lo;
    g.vmax = hi > lo ? hi : lo + 1.0;  // one value: any range shows it at the low end
  }
  return g;
}

void draw_colour_bar(Canvas& c, int x, int y, int h, double vmin, double vmax) {
  c.draw_colour_bar(x, y, k_bar_w, h, ColormapId::viridis);
  c.stroke_rect(x, y, k_bar_w, h, k_grey);
  const TextStyle label{k_value_px, k_black, TextAlign::start, TextDirection::horizontal};
  c.draw_text(x + k_bar_w + 4, y + static_cast<int>(k_value_px), value_text(vmax), label);
  c.draw_text(x + k_bar_w + 4, y + h, value_text(vmin), label);
}

}  // namespace

Canvas stats_grid_chart(const std::vector<HeadStats>& heads, const StatsMetric& metric,
                        const std::string& title, CanvasScale scale) {
  std::vector<HeadValue> values;
  for (const auto& h : heads) values.push_back({h.id, metric.value(h)});
  return head_grid_chart(values, metric.unit_range, title, scale);
}

Canvas head_grid_chart(const std::vector<HeadValue>& heads, bool unit_range,
                       const std::string& title, CanvasScale scale) {
  const Grid g = make_grid(heads, unit_range);
  const Canvas probe(1, 1, Rgb{255, 255, 255}, nullptr, scale);
  int label_w = 0;
  for (const auto& r : g.rows) label_w = std::max(label_w, probe.text_width(r, k_label_px));
  // Cells as wide as their widest value or head name and as tall as a line needs (--font-size).
  int cell_w = k_cell_w;
  for (const auto& [at, v] : g.cells)
    cell_w = std::max(cell_w, probe.text_width(value_text(v), k_value_px) + 12);
  cell_w =
      std::max(cell_w, probe.text_width(fmt::format("head {}", g.n_cols - 1), k_label_px) + 12);
  const LineMetrics tm = probe.line_metrics(k_title_px), lm = probe.line_metrics(k_label_px);
  const LineMetrics vm = probe.line_metrics(k_value_px);
  const int cell_h = std::max(k_cell_h, vm.line_height + 16);
  const int left = k_pad + label_w + 8;
  const int top = k_pad + tm.line_height + lm.line_height + 12;
  const int grid_w = g.n_cols * cell_w, grid_h = static_cast<int>(g.rows.size()) * cell_h;
  const int width = std::max(left + grid_w + 16 + k_bar_w + 12 +
                                 probe.text_width(value_text(g.vmin), k_value_px) +
                                 probe.text_width(value_text(g.vmax), k_value_px) + k_pad,
                             k_pad * 2 + probe.text_width(title, k_title_px));
  Canvas c(width, top + grid_h + k_pad, Rgb{255, 255, 255}, nullptr, scale);
  c.draw_text(k_pad, k_pad + tm.ascent, title, {k_title_px, k_black});
  const TextStyle head_style{k_label_px, k_black, TextAlign::center, TextDirection::horizontal};
  for (int h = 0; h < g.n_cols; ++h) {
    c.draw_text(left + h * cell_w + cell_w / 2, top - 6, fmt::format("head {}", h), head_style);
  }
  for (size_t r = 0; r < g.rows.size(); ++r) {
    const int y = top + static_cast<int>(r) * cell_h;
    c.draw_text(k_pad, y + cell_h / 2 + lm.ascent / 2, g.rows[r], {k_label_px, k_black});
    for (int h = 0; h < g.n_cols; ++h) {
      const int x = left + h * cell_w;
      const auto it = g.cells.find({static_cast<int>(r), h});
      if (it == g.cells.end()) {
        c.hatch_rect(x, y, cell_w, cell_h, k_white, k_light);
        continue;
      }
      const float t = colormap_position(static_cast<float>(it->second), static_cast<float>(g.vmin),
                                        static_cast<float>(g.vmax));
      const Rgb fill = std::isfinite(it->second) ? colormap(ColormapId::viridis, t) : k_light;
      c.fill_rect(x, y, cell_w, cell_h, fill);
      c.draw_text(x + cell_w / 2, y + cell_h / 2 + vm.ascent / 2, value_text(it->second),
                  {k_value_px, text_on(fill), TextAlign::center, TextDirection::horizontal});
    }
  }
  draw_colour_bar(c, left + grid_w + 16, top, std::max(grid_h, 40), g.vmin, g.vmax);
  return c;
}

Canvas max_weight_histogram_chart(const std::vector<HeadStats>& heads, const StatsOptions& options,
                                  const std::string& title, CanvasScale scale) {
  const HeadStats all = pool_all(heads);
  constexpr int bin_w = 28, plot_h = 240, left = 72, top = 56;
  const int plot_w = bin_w * k_histogram_bins;
  const std::string cf =
      options.temperature == 1.0 ? "unscaled q·k" : fmt::format("q·k / {:g}", options.temperature);
  const std::string threshold = fmt::format("saturated: max weight ≥ {:g}", options.saturation);
  const Canvas probe(1, 1, Rgb{255, 255, 255}, nullptr, scale);
  const int legend_w = 8 + 16 + probe.text_width("with the model's scale", k_value_px) + 16 + 16 +
                       probe.text_width(cf, k_value_px) + 16 + 16 +
                       probe.text_width(threshold, k_value_px);
  Canvas c(std::max(left + plot_w, left + legend_w) + 2 * k_pad, top + plot_h + 56,
           Rgb{255, 255, 255}, nullptr, scale);
  c.draw_text(k_pad, k_pad + static_cast<int>(k_title_px), title, {k_title_px, k_black});
  int64_t most = 1;
  for (int b = 0; b < k_histogram_bins; ++b) {
    most =
        std::max({most, all.scaled.max_weight_histogram[b], all.unscaled.max_weight_histogram[b]});
  }
  const Rgb scaled_colour = colormap(ColormapId::viridis, 0.25f);
  const Rgb unscaled_colour = colormap(ColormapId::viridis, 0.8f);
  const int base = top + plot_h;
  for (int b = 0; b < k_histogram_bins; ++b) {
    const int x = left + b * bin_w;
    const auto bar = [&](int64_t n, int dx, Rgb colour) {
      const int h = static_cast<int>(std::lround(double(n) / double(most) * plot_h));
      c.fill_rect(x + dx, base - h, bin_w / 2 - 2, h, colour);
    };
    bar(all.scaled.max_weight_histogram[b], 1, scaled_colour);
    bar(all.unscaled.max_weight_histogram[b], bin_w / 2, unscaled_colour);
  }
  c.draw_line(left, base, left + plot_w, base, k_black);
  c.draw_line(left, top, left, base, k_black);
  // The saturation threshold, dashed.
  const int xs = left + static_cast<int>(std::lround(options.saturation * plot_w));
  for (int y = top; y < base; y += 8) c.draw_line(xs, y, xs, std::min(base, y + 4), k_grey);
  const TextStyle tick{k_value_px, k_black, TextAlign::center, TextDirection::horizontal};
  for (int i = 0; i <= 4; ++i) {
    c.draw_text(left + plot_w * i / 4, base + 16, fmt::format("{:g}", i / 4.0), tick);
  }
  c.draw_text(left + plot_w / 2, base + 34, "max weight of a row", tick);
  c.draw_text(left - 6, top + 10, fmt::format("{}", most), {k_value_px, k_black, TextAlign::end});
  c.draw_text(left - 6, base, "0", {k_value_px, k_black, TextAlign::end});
  // The y axis's name, turned to read upwards along it.
  c.draw_text(k_pad + static_cast<int>(k_value_px), top + plot_h / 2, "rows",
              {k_value_px, k_black, TextAlign::center, TextDirection::up});
  // The legend: the two series, then the dashed threshold line, each its own entry.
  int x = left + 8;
  c.fill_rect(x, top - 18, 12, 12, scaled_colour);
  x += 16 + c.draw_text(x + 16, top - 8, "with the model's scale", {k_value_px, k_black}) + 16;
  c.fill_rect(x, top - 18, 12, 12, unscaled_colour);
  x += 16 + c.draw_text(x + 16, top - 8, cf, {k_value_px, k_black}) + 16;
  for (int y = top - 18; y < top - 6; y += 8)
    c.draw_line(x + 6, y, x + 6, std::min(top - 6, y + 4), k_grey);
  c.draw_text(x + 16, top - 8, threshold, {k_value_px, k_black});
  return c;
}

std::vector<std::filesystem::path> write_stats_charts(const std::filesystem::path& dir,
                                                      const std::vector<HeadStats>& heads,
                                                      const StatsMetric& metric,
                                                      const StatsOptions& options,
                                                      const std::string& model_name,
                                                      const FigureFile& file) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  const std::vector<std::filesystem::path> paths = {
      figure_path(dir, fmt::format("stats.grid.{}", metric.name), file.format),
      figure_path(dir, "stats.max_weight", file.format)};
  write_figure(
      paths[0],
      stats_grid_chart(heads, metric, fmt::format("{} · {}", model_name, metric.description),
                       figure_scale(file)),
      file);
  write_figure(paths[1],
               max_weight_histogram_chart(
                   heads, options, fmt::format("{} · row max weight, every head", model_name),
                   figure_scale(file)),
               file);
  return paths;
}

}  // namespace attnviz
