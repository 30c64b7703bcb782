// Overlays: a query's weights over the patch grid, tinted onto the picture (figure and terminal).
#include "attnviz/render/overlay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "attnviz/core/error.hpp"
#include "figure_parts.hpp"

namespace attnviz {

using namespace detail;  // figure_parts.hpp: margins, text sizes and colours of every figure

namespace {

uint8_t grey_of(const RgbImage& image, int y, int x) {
  const double l =
      0.299 * image.at(y, x, 0) + 0.587 * image.at(y, x, 1) + 0.114 * image.at(y, x, 2);
  return static_cast<uint8_t>(std::lround(0.75 * l));
}

void check(const OverlayFigure& f) {
  if (!f.image || f.rows < 1 || f.cols < 1 || f.patch < 1 ||
      f.weights.size() != size_t(f.rows) * size_t(f.cols) || f.image->width < f.cols * f.patch ||
      f.image->height < f.rows * f.patch) {
    throw Error("overlay: the weights, the patch grid and the image do not agree");
  }
}

}  // namespace

std::vector<float> overlay_positions(const OverlayFigure& f) {
  float top = 0.0f;
  for (float w : f.weights) top = std::max(top, std::isfinite(w) ? w : 0.0f);
  std::vector<float> t(f.weights.size(), 0.0f);
  for (size_t i = 0; i < t.size(); ++i)
    t[i] =
        top > 0 && std::isfinite(f.weights[i]) ? std::clamp(f.weights[i] / top, 0.0f, 1.0f) : 0.0f;
  return t;
}

Image tinted_image(const OverlayFigure& f, ColormapId cmap) {
  check(f);
  const std::vector<float> t = overlay_positions(f);
  const RgbImage& image = *f.image;
  Image out{image.width, image.height,
            std::vector<uint8_t>(size_t(image.width) * size_t(image.height) * 3)};
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const uint8_t g = grey_of(image, y, x);
      const int r = y / f.patch, c = x / f.patch;
      if (r >= f.rows || c >= f.cols) {
        out.set(x, y, Rgb{g, g, g});
        continue;
      }
      const float v = t[size_t(r) * size_t(f.cols) + size_t(c)];
      const Rgb heat = colormap(cmap, v);
      const auto mix = [&](uint8_t colour) {
        return static_cast<uint8_t>(std::lround((1.0f - 0.5f * v) * g + 0.5f * v * colour));
      };
      out.set(x, y, Rgb{mix(heat.r), mix(heat.g), mix(heat.b)});
    }
  }
  return out;
}

Canvas overlay_figure(const OverlayFigure& f, const FigureStyle& style) {
  const auto tinted = std::make_shared<const Image>(tinted_image(f, style.cmap));
  const int cell = std::max(1, 320 / std::max(tinted->width, tinted->height));
  Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = probe.line_metrics(k_title_px), cm = probe.line_metrics(k_caption_px);
  const int top = k_margin + tm.line_height + 6;
  const int w = tinted->width * cell, h = tinted->height * cell;
  const Rect bar{k_margin + w + 12, top, k_bar_w, h};
  const int caption_y = top + h + 8 + cm.ascent;
  const int width = std::max({bar.x + bar.w + 60, k_margin + probe.text_width(f.title, k_title_px),
                              k_margin + probe.text_width(f.caption, k_caption_px)}) +
                    k_margin;
  Canvas canvas(width, caption_y + cm.descent + k_margin, Rgb{255, 255, 255}, style.fonts,
                style.scale);
  canvas.draw_text(k_margin, k_margin + tm.ascent, f.title,
                   {.pixel_size = k_title_px, .color = k_text});
  canvas.draw_cells(k_margin, top, cell, tinted);
  canvas.stroke_rect(k_margin - 1, top - 1, w + 2, h + 2, k_muted);
  float top_weight = 0.0f;
  for (float v : f.weights) top_weight = std::max(top_weight, std::isfinite(v) ? v : 0.0f);
  FigureStyle scale = style;
  scale.log = false;
  scale.vmin = 0.0f;
  scale.vmax = top_weight > 0 ? top_weight : 1.0f;
  draw_colorbar(canvas, bar, scale);
  canvas.draw_text(k_margin, caption_y, f.caption, {.pixel_size = k_caption_px, .color = k_muted});
  return canvas;
}

namespace {

// The picture shrunk by a whole factor, each pixel the mean of a factor × factor block (the last
// blocks cut at the edges).
Image shrunk(const Image& image, int factor) {
  if (factor <= 1) return image;
  const int w = (image.width + factor - 1) / factor, h = (image.height + factor - 1) / factor;
  Image out{w, h, std::vector<uint8_t>(size_t(w) * size_t(h) * 3)};
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      int sum[3] = {0, 0, 0}, n = 0;
      for (int yy = y * factor; yy < std::min((y + 1) * factor, image.height); ++yy) {
        for (int xx = x * factor; xx < std::min((x + 1) * factor, image.width); ++xx) {
          const Rgb p = image.at(xx, yy);
          sum[0] += p.r, sum[1] += p.g, sum[2] += p.b, ++n;
        }
      }
      const auto mean = [&](int v) { return static_cast<uint8_t>((v + n / 2) / n); };
      out.set(x, y, Rgb{mean(sum[0]), mean(sum[1]), mean(sum[2])});
    }
  }
  return out;
}

}  // namespace

Canvas overlay_grid_figure(const OverlayGridFigure& g, const FigureStyle& style) {
  const size_t n_rows = g.row_labels.size(), n_cols = g.col_labels.size();
  if (n_rows == 0 || n_cols == 0 || g.cells.size() != n_rows * n_cols)
    throw Error("overlay grid: the cells do not fill the rows and columns");
  constexpr int k_side = 128, k_gap = 8;
  std::vector<std::shared_ptr<const Image>> tinted(g.cells.size());
  int cell = 1, img_w = 0, img_h = 0;
  for (size_t i = 0; i < g.cells.size(); ++i) {
    if (!g.cells[i]) continue;
    Image t = tinted_image(*g.cells[i], style.cmap);
    const int longest = std::max(t.width, t.height);
    const int factor = (longest + k_side - 1) / k_side;
    cell = factor > 1 ? 1 : std::max(1, k_side / std::max(1, longest));
    tinted[i] = std::make_shared<const Image>(shrunk(t, factor));
    img_w = std::max(img_w, tinted[i]->width * cell);
    img_h = std::max(img_h, tinted[i]->height * cell);
  }
  if (img_w == 0) throw Error("overlay grid: no cell to draw");
  Canvas probe(1, 1, Rgb{255, 255, 255}, style.fonts, style.scale);
  const LineMetrics tm = probe.line_metrics(k_title_px), lm = probe.line_metrics(k_label_px),
                    cm = probe.line_metrics(k_caption_px);
  int label_w = 0;
  for (const auto& l : g.row_labels) label_w = std::max(label_w, probe.text_width(l, k_label_px));
  const int left = k_margin + label_w + (label_w ? 8 : 0);
  const int top = k_margin + tm.line_height + 6 + lm.line_height;
  const int grid_w = int(n_cols) * img_w + int(n_cols - 1) * k_gap;
  const int grid_h = int(n_rows) * img_h + int(n_rows - 1) * k_gap;
  const Rect bar{left + grid_w + 12, top, k_bar_w, std::min(grid_h, 320)};
  const int caption_y = top + grid_h + 8 + cm.ascent;
  const int width = std::max({bar.x + bar.w + 60, k_margin + probe.text_width(g.title, k_title_px),
                              k_margin + probe.text_width(g.caption, k_caption_px)}) +
                    k_margin;
  Canvas canvas(width, caption_y + cm.descent + k_margin, Rgb{255, 255, 255}, style.fonts,
                style.scale);
  canvas.draw_text(k_margin, k_margin + tm.ascent, g.title,
                   {.pixel_size = k_title_px, .color = k_text});
  for (size_t c = 0; c < n_cols; ++c) {
    canvas.draw_text(left + int(c) * (img_w + k_gap) + img_w / 2, top - lm.descent - 2,
                     g.col_labels[c],
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::center});
  }
  for (size_t r = 0; r < n_rows; ++r) {
    const int y = top + int(r) * (img_h + k_gap);
    canvas.draw_text(left - 8, y + img_h / 2 + lm.ascent / 2, g.row_labels[r],
                     {.pixel_size = k_label_px, .color = k_text, .align = TextAlign::end});
    for (size_t c = 0; c < n_cols; ++c) {
      const auto& t = tinted[r * n_cols + c];
      if (!t) continue;
      const int x = left + int(c) * (img_w + k_gap);
      canvas.draw_cells(x, y, cell, t);
      canvas.stroke_rect(x - 1, y - 1, t->width * cell + 2, t->height * cell + 2, k_muted);
    }
  }
  FigureStyle scale = style;  // each cell's own top weight is 1 on this bar
  scale.log = false;
  scale.vmin = 0.0f;
  scale.vmax = 1.0f;
  draw_colorbar(canvas, bar, scale);
  canvas.draw_text(k_margin, caption_y, g.caption, {.pixel_size = k_caption_px, .color = k_muted});
  return canvas;
}

std::string terminal_overlay(const OverlayFigure& f, ColormapId cmap, int columns, bool colour) {
  check(f);
  std::string out = f.title + "\n";
  if (!colour) {
    // Ten levels, the lowest a centred dot, so the grid shows where little attention goes.
    static constexpr std::array<std::string_view, 10> k_shades = {"\u00b7", ".", ":", "-", "=",
                                                                  "+",      "*", "#", "%", "@"};
    const std::vector<float> t = overlay_positions(f);
    for (int r = 0; r < f.rows; ++r) {
      for (int c = 0; c < f.cols; ++c) {
        const float v = t[size_t(r) * size_t(f.cols) + size_t(c)];
        const std::string_view ch = k_shades[std::min<size_t>(9, size_t(v * 10.0f))];
        out += std::string(ch);
        if (2 * f.cols <= columns) out += std::string(ch);  // two per patch when they fit
      }
      out += '\n';
    }
    return out + f.caption + "\n";
  }
  Image tinted = tinted_image(f, cmap);
  // A small picture (a 16-pixel test image, a feature map's grid) enlarged up to 4 times, pixel by
  // pixel, so its patches stay legible; then each character a block of pixels, as many columns as
  // fit, two pixel rows per text row.
  if (const int up = std::min(4, std::max(1, columns / std::max(1, tinted.width))); up > 1) {
    Image big{tinted.width * up, tinted.height * up,
              std::vector<uint8_t>(size_t(tinted.width * up) * size_t(tinted.height * up) * 3)};
    for (int y = 0; y < big.height; ++y) {
      for (int x = 0; x < big.width; ++x) big.set(x, y, tinted.at(x / up, y / up));
    }
    tinted = std::move(big);
  }
  const int step = std::max(1, (tinted.width + columns - 1) / std::max(1, columns));
  const auto average = [&](int x0, int y0) {
    int n = 0;
    int sum[3] = {0, 0, 0};
    for (int y = y0; y < std::min(y0 + step, tinted.height); ++y) {
      for (int x = x0; x < std::min(x0 + step, tinted.width); ++x) {
        const Rgb p = tinted.at(x, y);
        sum[0] += p.r, sum[1] += p.g, sum[2] += p.b, ++n;
      }
    }
    n = std::max(n, 1);
    return Rgb{uint8_t(sum[0] / n), uint8_t(sum[1] / n), uint8_t(sum[2] / n)};
  };
  for (int y = 0; y < tinted.height; y += 2 * step) {
    for (int x = 0; x < tinted.width; x += step) {
      const Rgb a = average(x, y);
      const Rgb b = y + step < tinted.height ? average(x, y + step) : Rgb{0, 0, 0};
      out +=
          fmt::format("\x1b[38;2;{};{};{}m\x1b[48;2;{};{};{}m\u2580", a.r, a.g, a.b, b.r, b.g, b.b);
    }
    out += "\x1b[0m\n";
  }
  return out + f.caption + "\n";
}

}  // namespace attnviz
