// Canvas drawing (rectangles, hatching, lines, blits, text) and FontSet construction.
#include "attnviz/render/canvas.hpp"

#include <fmt/format.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "font.hpp"
#include "shaping.hpp"

namespace attnviz {
namespace {

bool is_font_path(const std::string& spec) {
  const std::filesystem::path p(spec);
  const std::string ext = p.extension().string();
  return spec.find('/') != std::string::npos || ext == ".ttf" || ext == ".otf" || ext == ".ttc";
}

bool is_generic_family(const std::string& spec) {
  const std::string family = spec.substr(0, spec.find(':'));
  return family.empty() || family == "sans-serif" || family == "sans" || family == "serif" ||
         family == "monospace";
}

// Labels are shaped as printable_text shows them: invalid bytes as U+FFFD and control characters
// as escapes, so every label draws as something visible. Glyph clusters are offsets in that text.
detail::Layout layout_text(const FontSet& fonts, const std::string& printable, float pixel_size) {
  return detail::shape_text(fonts, printable, pixel_size);
}

// The code point starting at byte `at` of valid UTF-8.
char32_t first_code_point(const std::string& text, size_t at) {
  size_t end = at + 1;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  return decode_utf8(std::string_view(text).substr(at, end - at)).front();
}

uint8_t blend(uint8_t below, uint8_t over, int alpha) {
  return static_cast<uint8_t>(below + ((over - below) * alpha + 127) / 255);
}

}  // namespace

// ---- FontSet ----

FontSet::FontSet(std::vector<std::unique_ptr<detail::LoadedFont>> fonts)
    : fonts_(std::move(fonts)) {
  if (fonts_.empty()) throw Error("font set: no fonts");
}
FontSet::~FontSet() = default;

std::shared_ptr<const FontSet> FontSet::find(const std::string& spec) {
  detail::FontFile primary;
  if (is_font_path(spec)) {
    if (!std::filesystem::is_regular_file(spec)) {
      throw usage_error(fmt::format("--font {}: no such font file", spec));
    }
    primary = {spec, 0};
  } else {
    const std::string pattern = spec.empty() ? "sans-serif" : spec;
    primary = detail::fontconfig_match(pattern, !is_generic_family(pattern));
    if (primary.path.empty()) {
      if (!spec.empty())
        throw usage_error(fmt::format("--font {}: fontconfig has no such font", spec));
      throw Error("fontconfig found no font at all (install fonts-dejavu-core)");
    }
  }
  std::vector<std::unique_ptr<detail::LoadedFont>> fonts;
  fonts.push_back(std::make_unique<detail::LoadedFont>(primary.path, primary.face_index));
  const detail::FontFile cjk = detail::fontconfig_cjk_fallback();
  if (!cjk.path.empty() && fonts.front()->glyph(U'\u4E2D') == 0) {
    fonts.push_back(std::make_unique<detail::LoadedFont>(cjk.path, cjk.face_index));
  }
  return std::make_shared<const FontSet>(std::move(fonts));
}

std::shared_ptr<const FontSet> FontSet::default_set() {
  static std::once_flag once;
  static std::shared_ptr<const FontSet> set;
  std::call_once(once, [] { set = find(""); });
  return set;
}

std::vector<std::filesystem::path> FontSet::files() const {
  std::vector<std::filesystem::path> out;
  for (const auto& f : fonts_) out.push_back(f->path);
  return out;
}

int FontSet::font_for(char32_t cp) const {
  for (size_t k = 0; k < fonts_.size(); ++k) {
    if (fonts_[k]->glyph(cp) != 0) return static_cast<int>(k);
  }
  return 0;
}

const detail::LoadedFont& FontSet::font(int index) const {
  return *fonts_.at(static_cast<size_t>(index));
}

// ---- Canvas: shapes ----

Canvas::Canvas(int width, int height, Rgb background, std::shared_ptr<const FontSet> fonts,
               CanvasScale scale)
    : scale_(scale), fonts_(std::move(fonts)) {
  if (width <= 0 || height <= 0) {
    throw Error(fmt::format("canvas: size {}×{} must be positive", width, height));
  }
  if (!(scale.pixels > 0.0f) || !(scale.text > 0.0f) || !std::isfinite(scale.pixels) ||
      !std::isfinite(scale.text)) {
    throw Error(fmt::format("canvas: scale {} pixels per unit, text × {} must be positive",
                            scale.pixels, scale.text));
  }
  drawing_.width = width, drawing_.height = height;
  image_.width = std::max(1, px(width));
  image_.height = std::max(1, px(height));
  image_.rgb.resize(static_cast<size_t>(image_.width) * static_cast<size_t>(image_.height) * 3);
  for (size_t k = 0; k < image_.rgb.size(); k += 3) {
    image_.rgb[k] = background.r, image_.rgb[k + 1] = background.g,
    image_.rgb[k + 2] = background.b;
  }
  drawing_.ops.emplace_back(DrawRect{0, 0, width, height, background});
}

int Canvas::px(double units) const {
  return static_cast<int>(std::lround(units * scale_.pixels));
}

const FontSet& Canvas::fonts() const {
  return *font_set();
}

const std::shared_ptr<const FontSet>& Canvas::font_set() const {
  if (!fonts_) fonts_ = FontSet::default_set();
  return fonts_;
}

void Canvas::fill_rect(int x, int y, int w, int h, Rgb color) {
  if (w <= 0 || h <= 0) return;
  drawing_.ops.emplace_back(DrawRect{x, y, w, h, color});
  raster_fill(x, y, w, h, color);
}

void Canvas::raster_fill(int x, int y, int w, int h, Rgb color) {
  const int x0 = std::max(px(x), 0), x1 = std::min(px(x + w), image_.width);
  const int y0 = std::max(px(y), 0), y1 = std::min(px(y + h), image_.height);
  for (int py = y0; py < y1; ++py) {
    uint8_t* p = image_.rgb.data() + (static_cast<size_t>(py) * image_.width + x0) * 3;
    for (int x_ = x0; x_ < x1; ++x_, p += 3) p[0] = color.r, p[1] = color.g, p[2] = color.b;
  }
}

void Canvas::stroke_rect(int x, int y, int w, int h, Rgb color, int thickness) {
  fill_rect(x, y, w, thickness, color);
  fill_rect(x, y + h - thickness, w, thickness, color);
  fill_rect(x, y, thickness, h, color);
  fill_rect(x + w - thickness, y, thickness, h, color);
}

void Canvas::hatch_rect(int x, int y, int w, int h, Rgb background, Rgb stripe, int spacing) {
  if (w <= 0 || h <= 0) return;
  spacing = std::max(spacing, 2);
  drawing_.ops.emplace_back(DrawHatch{x, y, w, h, background, stripe, spacing});
  raster_fill(x, y, w, h, background);
  const int step = std::max(2, px(spacing));         // image pixels between stripes
  const int thick = std::clamp(px(1), 1, step - 1);  // a stripe's pixels per row: one unit
  const int x0 = std::max(px(x), 0), x1 = std::min(px(x + w), image_.width);
  const int y0 = std::max(px(y), 0), y1 = std::min(px(y + h), image_.height);
  // Stripes on absolute coordinates (x + y ≡ 0 mod spacing), so neighbouring masked cells join
  // into one continuous hatch.
  for (int py = y0; py < y1; ++py) {
    uint8_t* row =
        image_.rgb.data() + static_cast<size_t>(py) * static_cast<size_t>(image_.width) * 3;
    // The first column of each stripe at or left of x0, so a stripe cut by x0 keeps its pixels.
    const int first = x0 + (step - (x0 + py) % step) % step - (thick > 1 ? step : 0);
    for (int x_ = first; x_ < x1; x_ += step) {
      for (int t = std::max(x_, x0); t < std::min(x_ + thick, x1); ++t) {
        row[3 * t] = stripe.r, row[3 * t + 1] = stripe.g, row[3 * t + 2] = stripe.b;
      }
    }
  }
}

void Canvas::draw_colour_bar(int x, int y, int w, int h, ColormapId cmap) {
  if (w <= 0 || h <= 0) return;
  auto bar = std::make_shared<Image>();
  bar->width = w, bar->height = h;
  bar->rgb.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  for (int i = 0; i < h; ++i) {
    const float t = h > 1 ? 1.0f - static_cast<float>(i) / static_cast<float>(h - 1) : 1.0f;
    const Rgb c = colormap(cmap, t);
    for (int j = 0; j < w; ++j) bar->set(j, i, c);
  }
  draw_cells(x, y, 1, std::move(bar));
}

void Canvas::draw_cells(int x, int y, int cell, std::shared_ptr<const Image> cells) {
  if (!cells || cells->width <= 0 || cells->height <= 0 || cell <= 0) return;
  const Image& src = *cells;
  drawing_.ops.emplace_back(DrawImage{x, y, src.width * cell, src.height * cell, cells});
  // Cell j spans image pixels [px(x + j·cell), px(x + (j + 1)·cell)).
  const int x0 = std::max(px(x), 0), x1 = std::min(px(x + src.width * cell), image_.width);
  if (x1 <= x0) return;
  std::vector<int> column(static_cast<size_t>(x1 - x0));  // the cell of each image column
  for (int j = 0, c = px(x); j < src.width; ++j) {
    const int end = px(x + (j + 1) * cell);
    for (; c < end; ++c) {
      if (c >= x0 && c < x1) column[static_cast<size_t>(c - x0)] = j;
    }
  }
  std::vector<uint8_t> row(static_cast<size_t>(x1 - x0) * 3);
  for (int i = 0; i < src.height; ++i) {
    // A row of cells widened once, then copied into each of its pixel rows.
    const uint8_t* from =
        src.rgb.data() + static_cast<size_t>(i) * static_cast<size_t>(src.width) * 3;
    uint8_t* out = row.data();
    for (const int j : column) {
      const uint8_t* p = from + static_cast<size_t>(j) * 3;
      out[0] = p[0], out[1] = p[1], out[2] = p[2];
      out += 3;
    }
    for (int py = std::max(px(y + i * cell), 0);
         py < std::min(px(y + (i + 1) * cell), image_.height); ++py) {
      std::memcpy(image_.rgb.data() + (static_cast<size_t>(py) * static_cast<size_t>(image_.width) +
                                       static_cast<size_t>(x0)) *
                                          3,
                  row.data(), row.size());
    }
  }
}

void Canvas::draw_line(int x0, int y0, int x1, int y1, Rgb color) {
  drawing_.ops.emplace_back(DrawLine{x0, y0, x1, y1, color});
  x0 = px(x0), y0 = px(y0), x1 = px(x1), y1 = px(y1);
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    if (x0 >= 0 && y0 >= 0 && x0 < image_.width && y0 < image_.height) image_.set(x0, y0, color);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

void Canvas::blit(const Image& src, int x, int y) {
  // Copied pixel for pixel at the image's resolution: src covers src.width / scale units.
  drawing_.ops.emplace_back(DrawImage{x, y,
                                      static_cast<int>(std::lround(src.width / scale_.pixels)),
                                      static_cast<int>(std::lround(src.height / scale_.pixels)),
                                      std::make_shared<const Image>(src)});
  const int bx = px(x), by = px(y);
  const int x0 = std::max(bx, 0), x1 = std::min(bx + src.width, image_.width);
  if (x0 >= x1) return;
  for (int py = std::max(by, 0); py < std::min(by + src.height, image_.height); ++py) {
    const uint8_t* from =
        src.rgb.data() + (static_cast<size_t>(py - by) * src.width + (x0 - bx)) * 3;
    uint8_t* to = image_.rgb.data() + (static_cast<size_t>(py) * image_.width + x0) * 3;
    std::copy(from, from + static_cast<size_t>(x1 - x0) * 3, to);
  }
}

// ---- Canvas: text ----

int Canvas::draw_text(int x, int baseline_y, std::string_view utf8, const TextStyle& style) {
  // Laid out at the image's pixel size; placed, measured and recorded in units.
  const float size = text_size(style.pixel_size);
  std::string text = printable_text(utf8);
  const detail::Layout layout = layout_text(fonts(), text, size * scale_.pixels);
  const int w_px = static_cast<int>(std::lround(layout.width));
  const int shift = style.align == TextAlign::center ? w_px / 2
                    : style.align == TextAlign::end  ? w_px
                                                     : 0;
  const bool up = style.direction == TextDirection::up;
  const int start =
      up ? px(baseline_y) + shift : px(x) - shift;  // where the pen starts along the text
  const int across = up ? px(x) : px(baseline_y);   // the baseline, in image pixels
  if (!layout.glyphs.empty()) {
    DrawText op{std::move(text),
                {},
                size,
                style.color,
                static_cast<float>(up ? across : start) / scale_.pixels,
                static_cast<float>(up ? start : across) / scale_.pixels,
                up};
    op.glyphs.reserve(layout.glyphs.size());
    for (const detail::PlacedGlyph& pg : layout.glyphs) {
      op.glyphs.push_back({pg.font, pg.glyph, pg.pen / scale_.pixels, pg.x_offset / scale_.pixels,
                           pg.y_offset / scale_.pixels, pg.cluster});
    }
    drawing_.ops.emplace_back(std::move(op));
  }
  for (const detail::PlacedGlyph& pg : layout.glyphs) {
    const detail::LoadedFont& font = fonts().font(pg.font);
    const auto bitmap = font.rasterise(pg.glyph, font.scale(size * scale_.pixels));
    const detail::GlyphBitmap& b = *bitmap;
    // The glyph's origin: the pen moved by its offsets (a mark's are not zero; y_offset is
    // upwards).
    const int pen = static_cast<int>(std::lround(pg.pen + pg.x_offset));
    const int rise = static_cast<int>(std::lround(pg.y_offset));
    for (int j = 0; j < b.height; ++j) {
      for (int i = 0; i < b.width; ++i) {
        const int a = b.coverage[static_cast<size_t>(j) * b.width + i];
        if (a == 0) continue;
        // Text space (u along the text, v down from the baseline) → image; `up` turns +u into -y
        // and +v into +x (glyph tops point left).
        const int u = pen + b.x0 + i, v = b.y0 + j - rise;
        const int x_ = up ? across + v : start + u;
        const int y_ = up ? start - u - 1 : across + v;
        if (x_ < 0 || y_ < 0 || x_ >= image_.width || y_ >= image_.height) continue;
        uint8_t* p = image_.rgb.data() + (static_cast<size_t>(y_) * image_.width + x_) * 3;
        p[0] = blend(p[0], style.color.r, a);
        p[1] = blend(p[1], style.color.g, a);
        p[2] = blend(p[2], style.color.b, a);
      }
    }
  }
  return static_cast<int>(std::lround(layout.width / scale_.pixels));
}

int Canvas::text_width(std::string_view utf8, float pixel_size) const {
  return static_cast<int>(
      std::lround(layout_text(fonts(), printable_text(utf8), text_size(pixel_size)).width));
}

LineMetrics Canvas::line_metrics(float pixel_size) const {
  const detail::LoadedFont& font = fonts().font(0);
  int ascent = 0, descent = 0, gap = 0;
  stbtt_GetFontVMetrics(&font.info, &ascent, &descent, &gap);
  const float scale = font.scale(text_size(pixel_size));
  LineMetrics m;
  m.ascent = static_cast<int>(std::ceil(static_cast<float>(ascent) * scale));
  m.descent = static_cast<int>(std::ceil(static_cast<float>(-descent) * scale));
  m.line_height =
      m.ascent + m.descent + static_cast<int>(std::lround(static_cast<float>(gap) * scale));
  return m;
}

std::string Canvas::fit_text(std::string_view utf8, float pixel_size, int max_width) const {
  const std::string text = printable_text(utf8);
  if (text_width(text, pixel_size) <= max_width) return text;
  const int ellipsis = text_width("…", pixel_size);
  std::string out;
  size_t k = 0;
  while (k < text.size()) {
    size_t next = k;  // the end of the next character with its marks (zero-width code points)
    do {
      ++next;  // printable_text is valid UTF-8: skip continuation bytes
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    } while (next < text.size() && codepoint_width(first_code_point(text, next)) == 0);
    if (text_width(text.substr(0, next), pixel_size) + ellipsis > max_width) break;
    k = next;
  }
  // The ellipsis goes where the text was cut, its logical end: after right-to-left text that is its
  // left end: right-to-left marks on both sides make the neutral "…" part of that run.
  bool rtl = false;
  for (const char32_t cp : decode_utf8(text.substr(0, k))) {
    const UCharDirection d = u_charDirection(static_cast<UChar32>(cp));
    if (d == U_LEFT_TO_RIGHT) rtl = false;
    if (d == U_RIGHT_TO_LEFT || d == U_RIGHT_TO_LEFT_ARABIC) rtl = true;
  }
  return text.substr(0, k) + (rtl ? "\u200F…\u200F" : "…");
}

}  // namespace attnviz
