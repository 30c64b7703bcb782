// A canvas's drawing replayed on a cairo surface: rectangles, hatches, lines, images and the glyphs
// the canvas placed, drawn from the same font files through cairo's FreeType backend.
#include "cairo_replay.hpp"

#include <cairo-ft.h>
#include <fmt/format.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <utility>

#include "attnviz/core/error.hpp"
#include "font.hpp"

namespace attnviz::detail {
namespace {

// cairo font faces, one per font file and face, made once and kept for the process: cairo holds
// faces in its own caches past any one surface, so they (and the FreeType library under them)
// must outlive every figure.
cairo_font_face_t* cairo_face(const detail::LoadedFont& font) {
  static std::mutex mutex;
  static FT_Library library = nullptr;
  static std::map<std::pair<std::string, int>, cairo_font_face_t*> faces;
  const std::lock_guard lock(mutex);
  if (library == nullptr && FT_Init_FreeType(&library) != 0)
    throw Error("FreeType could not start");
  const auto key = std::make_pair(font.path.string(), font.face_index);
  if (const auto it = faces.find(key); it != faces.end()) return it->second;
  FT_Face face = nullptr;
  if (FT_New_Face(library, key.first.c_str(), font.face_index, &face) != 0) {
    throw Error(
        fmt::format("{}: FreeType cannot read face {} of this font", key.first, font.face_index));
  }
  cairo_font_face_t* cf = cairo_ft_font_face_create_for_ft_face(face, 0);
  if (cairo_font_face_status(cf) != CAIRO_STATUS_SUCCESS) {
    throw Error(fmt::format("{}: cairo cannot use this font: {}", key.first,
                            cairo_status_to_string(cairo_font_face_status(cf))));
  }
  faces.emplace(key, cf);
  return cf;
}

void set_colour(cairo_t* cr, Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void draw_rect(cairo_t* cr, const DrawRect& r) {
  cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  set_colour(cr, r.color);
  cairo_fill(cr);
}

// A run of hatches with the same colours (a map's masked runs, one per row) as one region: its
// background filled, then one set of stripes clipped to it. Stripe pixels of the canvas are those
// with x + y ≡ 0 (mod spacing), whose centres lie on the lines x + y = k · spacing + 1.
void draw_hatches(cairo_t* cr, const DrawHatch* first, size_t n) {
  int x0 = first->x, y0 = first->y, x1 = first->x + first->w, y1 = first->y + first->h;
  for (size_t k = 0; k < n; ++k) {
    const DrawHatch& h = first[k];
    cairo_rectangle(cr, h.x, h.y, h.w, h.h);
    x0 = std::min(x0, h.x), y0 = std::min(y0, h.y);
    x1 = std::max(x1, h.x + h.w), y1 = std::max(y1, h.y + h.h);
  }
  cairo_save(cr);
  cairo_clip_preserve(cr);
  set_colour(cr, first->background);
  cairo_fill(cr);
  const int s = first->spacing;
  for (int k = (x0 + y0) / s - 1; k * s <= x1 + y1 + s; ++k) {
    const double c = k * s + 1.0;  // the line x + y = c across the bounding box
    cairo_move_to(cr, c - y0, y0);
    cairo_line_to(cr, c - y1, y1);
  }
  set_colour(cr, first->stripe);
  cairo_set_line_width(cr, 0.75);
  cairo_stroke(cr);
  cairo_restore(cr);
}

void draw_line(cairo_t* cr, const DrawLine& l) {
  cairo_move_to(cr, l.x0 + 0.5, l.y0 + 0.5);
  cairo_line_to(cr, l.x1 + 0.5, l.y1 + 0.5);
  set_colour(cr, l.color);
  cairo_set_line_width(cr, 1.0);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  cairo_stroke(cr);
}

// upscale: each pixel stored as upscale × upscale pixels (SVG viewers that ignore the image's
// rendering hint then blur only the cells' edges).
void draw_image(cairo_t* cr, const DrawImage& d, int upscale) {
  const Image& img = *d.pixels;
  if (img.width <= 0 || img.height <= 0) return;
  const int w = img.width * upscale, h = img.height * upscale;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  const std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owned(
      surface, cairo_surface_destroy);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    throw Error(fmt::format("figure: cairo cannot hold a {}×{} image: {}", w, h,
                            cairo_status_to_string(cairo_surface_status(surface))));
  }
  cairo_surface_flush(surface);
  unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < h; ++y) {
    auto* row =
        reinterpret_cast<uint32_t*>(data + static_cast<size_t>(y) * static_cast<size_t>(stride));
    const uint8_t* from =
        img.rgb.data() + static_cast<size_t>(y / upscale) * static_cast<size_t>(img.width) * 3;
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = from + static_cast<size_t>(x / upscale) * 3;
      row[x] = uint32_t{p[0]} << 16 | uint32_t{p[1]} << 8 | p[2];
    }
  }
  cairo_surface_mark_dirty(surface);
  cairo_save(cr);
  cairo_translate(cr, d.x, d.y);
  cairo_scale(cr, static_cast<double>(d.w) / w, static_cast<double>(d.h) / h);
  cairo_set_source_surface(cr, surface, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_fill(cr);
  cairo_restore(cr);
}

// An SVG's images are stored at the size the canvas drew them (a cell's pixels), up to 4,096 per
// side; a PDF's at a pixel per cell, which PDF viewers never blur.
int svg_upscale(const DrawImage& d) {
  const int per_cell = std::max(1, d.w / std::max(1, d.pixels->width));
  const int fits = std::max(1, 4096 / std::max({1, d.pixels->width, d.pixels->height}));
  return std::min(per_cell, fits);
}

// A stretch of glyphs drawn with one cairo_show_text_glyphs call: one font, and clusters that
// follow the text forwards (left-to-right text) or backwards (right-to-left), with no gap, so the
// glyphs map to one contiguous range of the text.
struct GlyphRun {
  size_t begin = 0, end = 0;  // glyphs [begin, end)
  bool backward = false;
};

// The runs of t's glyphs. `next` gives, for a cluster, the start of the cluster after it in the
// text (the text's size after the last), so a cluster's bytes are [c, next(c)).
std::vector<GlyphRun> glyph_runs(const DrawText& t, const std::map<uint32_t, uint32_t>& next) {
  std::vector<GlyphRun> runs;
  for (size_t k = 0; k < t.glyphs.size(); ++k) {
    const DrawGlyph& g = t.glyphs[k];
    if (!runs.empty()) {
      GlyphRun& r = runs.back();
      const DrawGlyph& prev = t.glyphs[k - 1];
      const bool multi = r.end - r.begin > 1 && t.glyphs[r.begin].cluster != prev.cluster;
      const bool same = g.font == t.glyphs[r.begin].font;
      if (same && g.cluster == prev.cluster) {
        r.end = k + 1;
        continue;
      }
      if (same && (!multi || !r.backward) && next.at(prev.cluster) == g.cluster) {
        r.end = k + 1, r.backward = false;
        continue;
      }
      if (same && (!multi || r.backward) && next.at(g.cluster) == prev.cluster) {
        r.end = k + 1, r.backward = true;
        continue;
      }
    }
    runs.push_back({k, k + 1, false});
  }
  return runs;
}

// The glyphs at the canvas's positions, a run of glyphs per call, each mapped back to the
// characters it draws (cairo_show_text_glyphs with the shaper's clusters, so a PDF's text can be
// searched and copied: a ligature as its letters, right-to-left text in its logical order).
void draw_text(cairo_t* cr, const DrawText& t, const FontSet& fonts) {
  std::map<uint32_t, uint32_t> next;  // each cluster → the start of the next one in the text
  for (const DrawGlyph& g : t.glyphs) {
    if (g.cluster >= t.text.size()) {
      throw Error(
          fmt::format("figure: text '{}' has a glyph of byte {} past its end", t.text, g.cluster));
    }
    next.emplace(g.cluster, 0);
  }
  for (auto it = next.begin(); it != next.end(); ++it) {
    const auto after = std::next(it);
    it->second = after == next.end() ? static_cast<uint32_t>(t.text.size()) : after->first;
  }
  cairo_save(cr);
  cairo_translate(cr, t.x, t.y);
  if (t.up) cairo_rotate(cr, -std::numbers::pi / 2);
  set_colour(cr, t.color);
  for (const GlyphRun& run : glyph_runs(t, next)) {
    const detail::LoadedFont& font = fonts.font(t.glyphs[run.begin].font);
    cairo_set_font_face(cr, cairo_face(font));
    cairo_set_font_size(cr, font.em_pixels(t.pixel_size));
    std::vector<cairo_glyph_t> glyphs;
    std::vector<cairo_text_cluster_t>
        clusters;  // in text order; glyphs taken from the end when backward
    for (size_t k = run.begin; k < run.end; ++k) {
      const DrawGlyph& g = t.glyphs[k];
      glyphs.push_back({static_cast<unsigned long>(g.glyph), g.pen + g.x_offset, -g.y_offset});
    }
    for (size_t k = run.begin; k < run.end;) {
      size_t e = k + 1;
      while (e < run.end && t.glyphs[e].cluster == t.glyphs[k].cluster) ++e;
      const uint32_t c = t.glyphs[k].cluster;
      clusters.push_back({static_cast<int>(next.at(c) - c), static_cast<int>(e - k)});
      k = e;
    }
    if (run.backward) std::reverse(clusters.begin(), clusters.end());
    const uint32_t first = std::min(t.glyphs[run.begin].cluster, t.glyphs[run.end - 1].cluster);
    const uint32_t last = std::max(t.glyphs[run.begin].cluster, t.glyphs[run.end - 1].cluster);
    cairo_show_text_glyphs(
        cr, t.text.data() + first, static_cast<int>(next.at(last) - first), glyphs.data(),
        static_cast<int>(glyphs.size()), clusters.data(), static_cast<int>(clusters.size()),
        run.backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : cairo_text_cluster_flags_t{});
  }
  cairo_restore(cr);
}

}  // namespace

void replay(cairo_t* cr, const Canvas& figure, FigureFormat format) {
  const auto& ops = figure.drawing().ops;
  cairo_font_options_t* options = cairo_font_options_create();
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(options,
                                      CAIRO_HINT_METRICS_OFF);  // the canvas's unhinted advances
  cairo_set_font_options(cr, options);
  cairo_font_options_destroy(options);
  for (size_t k = 0; k < ops.size();) {
    if (const auto* h = std::get_if<DrawHatch>(&ops[k])) {
      std::vector<DrawHatch> run{*h};
      while (++k < ops.size()) {
        const auto* next = std::get_if<DrawHatch>(&ops[k]);
        if (!next || next->background != h->background || next->stripe != h->stripe ||
            next->spacing != h->spacing)
          break;
        run.push_back(*next);
      }
      draw_hatches(cr, run.data(), run.size());
      continue;
    }
    std::visit(
        [&](const auto& op) {
          using T = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<T, DrawRect>) draw_rect(cr, op);
          if constexpr (std::is_same_v<T, DrawLine>) draw_line(cr, op);
          if constexpr (std::is_same_v<T, DrawImage>)
            draw_image(cr, op, format == FigureFormat::svg ? svg_upscale(op) : 1);
          if constexpr (std::is_same_v<T, DrawText>) draw_text(cr, op, *figure.font_set());
        },
        ops[k]);
    ++k;
  }
}

}  // namespace attnviz::detail
