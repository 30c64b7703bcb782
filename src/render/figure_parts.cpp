// Parts shared by the figures: colour positions, the colour bar, cells, thinned axis labels.
#include "figure_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/core/vector_math.hpp"

namespace attnviz {

namespace {

float log_low(const FigureStyle& style) {
  return style.vmin > 0.0f ? style.vmin : style.vmax * k_log_floor;
}
}  // namespace

float figure_position(float value, const FigureStyle& style) {
  if (!style.log) return colormap_position(value, style.vmin, style.vmax);
  const float lo = log_low(style);
  if (!(lo > 0.0f) || !(style.vmax > lo)) return 0.0f;
  if (std::isnan(value) || value <= lo) return 0.0f;
  return colormap_position(std::log10(value), std::log10(lo), std::log10(style.vmax));
}

int draw_colorbar(Canvas& canvas, const Rect& r, const FigureStyle& style) {
  canvas.draw_colour_bar(r.x, r.y, r.w, r.h, style.cmap);
  canvas.stroke_rect(r.x - 1, r.y - 1, r.w + 2, r.h + 2, detail::k_muted);
  // Ticks at round values: each power of ten in range (log, written 10⁻³), or multiples of a
  // 1-2-5 step, 3 to 6 of them (linear), as matplotlib's locators place them.
  std::vector<float> ticks = style.log ? detail::log_ticks(log_low(style), style.vmax)
                                       : detail::linear_ticks(style.vmin, style.vmax);
  if (style.log && ticks.size() < 2)
    ticks = {log_low(style), style.vmax};  // less than a decade: its ends
  const LineMetrics m = canvas.line_metrics(detail::k_tick_px);
  int right = r.x + r.w;
  for (const float v : ticks) {
    const float t = figure_position(v, style);
    const int y = r.y + static_cast<int>(std::lround((1.0f - t) * static_cast<float>(r.h - 1)));
    canvas.fill_rect(r.x + r.w, y, 4, 1, detail::k_text);
    const int w = canvas.draw_text(r.x + r.w + 7, y + (m.ascent - m.descent) / 2,
                                   style.log ? detail::format_power(v) : detail::format_value(v),
                                   {.pixel_size = detail::k_tick_px, .color = detail::k_text});
    right = std::max(right, r.x + r.w + 7 + w);
  }
  return right;
}

namespace detail {

std::vector<float> linear_ticks(float lo, float hi) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  // The smallest step of 1, 2 or 5 × 10^k that leaves at most 6 ticks in [lo, hi].
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  double step = std::pow(10.0, std::floor(std::log10(span / 6.0)));
  for (const double m : {1.0, 2.0, 5.0, 10.0, 20.0}) {
    if (span / (step * m) <= 5.0 + 1e-9) {
      step *= m;
      break;
    }
  }
  std::vector<float> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    ticks.push_back(static_cast<float>(k * step));
  }
  return ticks;
}

std::vector<float> log_ticks(float lo, float hi) {
  std::vector<float> ticks;
  if (!(hi > 0) || !(lo > 0)) return ticks;
  for (int e = static_cast<int>(std::ceil(std::log10(lo) - 1e-6));
       std::pow(10.0, e) <= hi * (1 + 1e-6); ++e) {
    ticks.push_back(static_cast<float>(std::pow(10.0, e)));
  }
  return ticks;
}

std::string format_power(float v) {
  const int e = static_cast<int>(std::lround(std::log10(v)));
  if (std::fabs(static_cast<double>(v) - std::pow(10.0, e)) > 1e-6 * std::pow(10.0, e))
    return format_value(v);
  static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = "10";
  if (e < 0) out += "⁻";
  for (const char c : std::to_string(std::abs(e))) out += digits[c - '0'];
  return out;
}

std::string format_value(float v) {
  if (v == 0.0f) return "0";
  const float a = std::fabs(v);
  if (a >= 1e-2f && a < 1e4f) {
    std::string s = fmt::format("{:.3f}", v);
    while (s.back() == '0') s.pop_back();  // 0.250 → 0.25, 1.000 → 1.
    if (s.back() == '.') s.pop_back();
    return s;
  }
  std::string s = fmt::format("{:.0e}", v);  // 2e-04 → 2e-4
  const auto e = s.find("e-0");
  if (e != std::string::npos) s.erase(e + 2, 1);
  return s;
}

AxisLabels thin_labels(const Canvas& canvas, const std::vector<std::string>& labels, int n,
                       float px_per_token, int max_label) {
  AxisLabels out;
  const float line = static_cast<float>(canvas.line_metrics(k_label_px).line_height);
  out.step = std::max(1, static_cast<int>(std::ceil(line / std::max(px_per_token, 1e-3f))));
  // Round the step up to 1, 2, 5 × 10^k so the labelled indices are easy to read.
  if (out.step > 1) {
    int base = 1;
    while (base * 10 < out.step) base *= 10;
    out.step = out.step <= base       ? base
               : out.step <= 2 * base ? 2 * base
               : out.step <= 5 * base ? 5 * base
                                      : 10 * base;
  }
  for (int t = 0; t < n; t += out.step) {
    const std::string label = labels.empty() ? std::to_string(t) : labels[static_cast<size_t>(t)];
    const std::string text =
        out.step > 1 && !labels.empty() ? fmt::format("{} {}", t, label) : label;
    out.tokens.push_back(t);
    out.texts.push_back(canvas.fit_text(text, k_label_px, max_label));
  }
  return out;
}

int widest(const Canvas& canvas, const AxisLabels& labels) {
  int w = 0;
  for (const auto& t : labels.texts) w = std::max(w, canvas.text_width(t, k_label_px));
  return w;
}

void draw_row_labels(Canvas& canvas, const AxisLabels& labels, int x_right, int y_top,
                     float px_per_token) {
  const LineMetrics m = canvas.line_metrics(k_label_px);
  for (size_t k = 0; k < labels.tokens.size(); ++k) {
    const int centre = y_top + static_cast<int>((labels.tokens[k] + 0.5f) * px_per_token);
    canvas.fill_rect(x_right + 5, centre, 4, 1, k_muted);  // tick, apart from the text
    canvas.draw_text(x_right, centre + (m.ascent - m.descent) / 2, labels.texts[k],
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::end});
  }
}

// A label of wide characters only (Chinese, Japanese, Korean): read top to bottom with each
// character upright, as such text is set vertically, not turned on its side.
bool upright_label(const std::string& text) {
  const std::vector<char32_t> cps = decode_utf8(printable_text(text));
  return !cps.empty() &&
         std::all_of(cps.begin(), cps.end(), [](char32_t cp) { return codepoint_width(cp) == 2; });
}

// Its characters one under another, each centred on x, the last ending at y_bottom: a character
// takes its advance (square for these scripts), so the stack is as tall as the label turned on its
// side is long, and the layout that measured it that way holds.
void draw_stacked(Canvas& canvas, int x, int y_bottom, const std::string& text) {
  const LineMetrics m = canvas.line_metrics(k_label_px);
  int top = y_bottom - canvas.text_width(text, k_label_px);
  for (const char32_t cp : decode_utf8(printable_text(text))) {
    std::string one;
    append_utf8(one, cp);
    const int advance = canvas.text_width(one, k_label_px);
    // The em box's baseline: ascent / (ascent + descent) of the way down.
    const int baseline = top + advance * m.ascent / std::max(1, m.ascent + m.descent);
    canvas.draw_text(x, baseline, one,
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::center});
    top += advance;
  }
}

void draw_col_labels(Canvas& canvas, const AxisLabels& labels, int x_left, int y_bottom,
                     float px_per_token) {
  const LineMetrics m = canvas.line_metrics(k_label_px);
  for (size_t k = 0; k < labels.tokens.size(); ++k) {
    const int centre = x_left + static_cast<int>((labels.tokens[k] + 0.5f) * px_per_token);
    canvas.fill_rect(centre, y_bottom + 5, 1, 4, k_muted);  // tick, apart from the text
    if (upright_label(labels.texts[k])) {
      draw_stacked(canvas, centre, y_bottom, labels.texts[k]);
      continue;
    }
    // Rotated text: its baseline is a vertical line; glyphs extend ascent to its left.
    canvas.draw_text(centre + (m.ascent - m.descent) / 2, y_bottom, labels.texts[k],
                     {.pixel_size = k_label_px, .color = k_text, .direction = TextDirection::up});
  }
}

void draw_cells(Canvas& canvas, int x, int y, int cell, const Matrix& values,
                const MaskMatrix& allowed, const FigureStyle& style) {
  // The cells as an image, a pixel per cell (drawn scaled by the canvas, embedded as it is in
  // vector files), then each row's runs of masked cells hatched over it, one hatch per run: the
  // stripes sit on absolute coordinates, so a run draws what cell-by-cell hatching draws.
  auto image = std::make_shared<Image>();
  image->width = static_cast<int>(values.cols()), image->height = static_cast<int>(values.rows());
  image->rgb.resize(static_cast<size_t>(values.size()) * 3 +
                    1);  // + 1: the packed stores' spare byte
  // Each colour as 4 bytes (r, g, b, unused), stored whole at 3-byte steps: one store per pixel,
  // the fourth byte overwritten by the next pixel.
  std::array<uint32_t, 256> packed{};
  const auto pack = [](Rgb c) { return uint32_t{c.r} | uint32_t{c.g} << 8 | uint32_t{c.b} << 16; };
  for (size_t k = 0; k < packed.size(); ++k) packed[k] = pack(colormap_colors(style.cmap)[k]);
  const uint32_t non_finite = pack(k_non_finite_rgb), hatch = pack(k_hatch_background);
  const auto n_cols = static_cast<size_t>(values.cols());
  std::vector<uint8_t> bins(n_cols);
  struct Run {
    int x, y, w;
  };
  std::vector<Run> masked_runs;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    const float* v = values.row(i).data();
    const uint8_t* keep = allowed.row(i).data();
    uint8_t* out = image->rgb.data() + static_cast<size_t>(i) * n_cols * 3;
    for (size_t j = 0; j < n_cols;) {
      const bool masked = keep[j] == 0;
      const size_t end = static_cast<size_t>(
          std::find_if(keep + j + 1, keep + n_cols, [&](uint8_t k) { return (k == 0) != masked; }) -
          keep);
      if (masked) {
        masked_runs.push_back({x + static_cast<int>(j) * cell, y + static_cast<int>(i) * cell,
                               static_cast<int>(end - j) * cell});
        for (size_t k = j; k < end; ++k) std::memcpy(out + 3 * k, &hatch, 4);
        j = end;
        continue;
      }
      if (style.log) {
        for (size_t k = j; k < end; ++k)
          bins[k] = static_cast<uint8_t>(colormap_index(figure_position(v[k], style)));
      } else {  // colormap_index(colormap_position(v, vmin, vmax)), vectorised
        bins_256(v + j, end - j, style.vmin, style.vmax, bins.data() + j);
      }
      for (size_t k = j; k < end; ++k) {
        const uint32_t c = std::isfinite(v[k]) ? packed[bins[k]] : non_finite;
        std::memcpy(out + 3 * k, &c, 4);
      }
      j = end;
    }
  }
  image->rgb.pop_back();
  canvas.draw_cells(x, y, cell, std::move(image));
  for (const Run& r : masked_runs)
    canvas.hatch_rect(r.x, r.y, r.w, cell, k_hatch_background, k_hatch_stripe);
}

void throw_too_small(int width, int height, const FigureStyle& style, const std::string& what) {
  const auto size = [](int w, int h) {
    return fmt::format("{:.2f} × {:.2f} in ({:.1f} × {:.1f} cm)", w / k_units_per_inch,
                       h / k_units_per_inch, w * 2.54 / k_units_per_inch,
                       h * 2.54 / k_units_per_inch);
  };
  throw usage_error(fmt::format(
      "--size: the figure \"{}\" needs {} with its cells at their smallest (1/100 in), more "
      "than the {} given; give a larger --size or a smaller --font-size",
      what, size(width, height), size(style.fit_width, style.fit_height)));
}

bool any_masked(const FigureMap& map) {
  return (map.allowed.array() == 0).any();
}
// An allowed cell holding NaN or ±inf: drawn magenta and explained in the legend.
bool any_non_finite(const FigureMap& map) {
  return count_non_finite(map) > 0;
}
// Legend entries under the colour bar: a swatch and its meaning, one per line.
int legend_entries(const FigureMap& map) {
  return (any_masked(map) ? 1 : 0) + (any_non_finite(map) ? 1 : 0);
}

// Values inside cells when a formatted value fits: small, unpooled maps only.
void draw_cell_values(Canvas& canvas, int x, int y, int cell, const FigureMap& map,
                      const FigureStyle& style) {
  const float size = std::clamp(static_cast<float>(cell) * 0.28f, 9.0f, 13.0f);
  if (!style.cell_values || map.pool != 1 || canvas.text_width("0.00", size) > cell - 4) return;
  const LineMetrics m = canvas.line_metrics(size);
  for (Eigen::Index i = 0; i < map.values.rows(); ++i) {
    for (Eigen::Index j = 0; j < map.values.cols(); ++j) {
      if (map.allowed(i, j) == 0 || !std::isfinite(map.values(i, j))) continue;
      const Rgb c = colormap(style.cmap, figure_position(map.values(i, j), style));
      const bool light = 0.299f * c.r + 0.587f * c.g + 0.114f * c.b > 140.0f;  // luma
      std::string text = fmt::format("{:.2f}", map.values(i, j));
      if (text == "-0.00") text = "0.00";  // a difference of −0.0004 rounds to 0: no sign on it
      canvas.draw_text(x + static_cast<int>(j) * cell + cell / 2,
                       y + static_cast<int>(i) * cell + (cell + m.ascent - m.descent) / 2, text,
                       {.pixel_size = size,
                        .color = light ? Rgb{0, 0, 0} : Rgb{255, 255, 255},
                        .align = TextAlign::center});
    }
  }
}

int draw_legend(Canvas& canvas, int x, int y, bool masked, bool non_finite) {
  if (masked) {
    canvas.hatch_rect(x, y, k_bar_w, k_bar_w, k_hatch_background, k_hatch_stripe);
    canvas.draw_text(x + k_bar_w + 6, y + k_bar_w - 3, "masked",
                     {.pixel_size = k_tick_px, .color = k_text});
    y += k_bar_w + 4;
  }
  if (non_finite) {
    canvas.fill_rect(x, y, k_bar_w, k_bar_w, k_non_finite_rgb);
    canvas.draw_text(x + k_bar_w + 6, y + k_bar_w - 3, k_non_finite_label,
                     {.pixel_size = k_tick_px, .color = k_text});
    y += k_bar_w + 4;
  }
  return y;
}

// The caption's " · " parts joined into lines no wider than `width` (a part wider than that alone).
std::vector<std::string> wrap_caption(const Canvas& canvas, const std::string& caption, int width,
                                      float pixel_size) {
  std::vector<std::string> lines;
  const std::string sep = " · ";
  std::string line;
  for (size_t start = 0; start <= caption.size();) {
    size_t end = caption.find(sep, start);
    if (end == std::string::npos) end = caption.size();
    const std::string part = caption.substr(start, end - start);
    const std::string joined = line.empty() ? part : line + sep + part;
    if (line.empty() || canvas.text_width(joined, pixel_size) <= width) {
      line = joined;
    } else {
      lines.push_back(line);
      line = part;
    }
    start = end + sep.size();
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace detail
}  // namespace attnviz
