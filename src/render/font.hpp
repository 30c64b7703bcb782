// Internal: one loaded font file (bytes + stbtt_fontinfo + a HarfBuzz font over the same bytes) and
// glyph rasterisation, for canvas.cpp and shaping.cpp.
#pragma once

#include <stb/stb_truetype.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct hb_font_t;  // HarfBuzz (hb.h), kept out of this header's includers

namespace attnviz::detail {

// A coverage bitmap of one glyph (0 = none, 255 = full), placed relative to the pen position on
// the baseline: its top-left pixel is at (pen_x + x0, baseline + y0).
struct GlyphBitmap {
  int width = 0, height = 0, x0 = 0, y0 = 0;
  std::vector<unsigned char> coverage;
};

struct LoadedFont {
  std::filesystem::path path;
  int face_index = 0;
  std::vector<unsigned char> bytes;  // stbtt_fontinfo points into these
  stbtt_fontinfo info{};
  // The same face for HarfBuzz, scaled to font units (so shaped positions × scale(pixel_size) are
  // pixels, as stbtt's metrics are) and immutable, so threads may shape with it at once.
  std::unique_ptr<hb_font_t, void (*)(hb_font_t*)> shaper{nullptr, nullptr};

  // Reads face `face_index` of a .ttf / .otf / .ttc file; throws Error naming the path.
  LoadedFont(std::filesystem::path file, int face_index);
  LoadedFont(const LoadedFont&) = delete;
  LoadedFont& operator=(const LoadedFont&) = delete;

  int glyph(char32_t cp) const { return stbtt_FindGlyphIndex(&info, static_cast<int>(cp)); }
  float scale(float pixel_size) const { return stbtt_ScaleForPixelHeight(&info, pixel_size); }
  // The em size in pixels of text drawn at pixel_size (pixel_size is ascent-to-descent, as stbtt
  // scales): the font size a vector file states for the same glyphs.
  float em_pixels(float pixel_size) const {
    return scale(pixel_size) / stbtt_ScaleForMappingEmToPixels(&info, 1.0f);
  }
  // Advance of glyph g in pixels (unscaled font units × scale).
  float advance(int g, float scale) const;
  // Glyph g at `scale`, rasterised once per font and scale, then shared: every figure of a run
  // draws the same labels, ticks and captions, on several threads (the cache is locked).
  std::shared_ptr<const GlyphBitmap> rasterise(int g, float scale) const;

 private:
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<uint64_t, std::shared_ptr<const GlyphBitmap>> cache_;
};

// stb_truetype trusts every offset in a font file (no bounds checks), so the bytes are checked
// first (font_check.cpp): table directory, table extents, the fixed fields stbtt_InitFont reads,
// cmap records, hmtx and loca against their counts. Throws Error naming `file` and the fault.
void check_font_bounds(const std::vector<unsigned char>& bytes, int face_index,
                       const std::string& file);

// Fontconfig look-ups. The file and face index of the best match for a fontconfig pattern
// ("sans-serif", "DejaVu Sans:bold"), or an empty path when nothing matches. Fontconfig always
// substitutes something; with require_family the match must carry the pattern's first family
// (case-insensitive), so `--font Nosuch` is an error rather than a silent DejaVu.
struct FontFile {
  std::filesystem::path path;
  int face_index = 0;
};
FontFile fontconfig_match(const std::string& pattern, bool require_family = false);
// The first font of FcFontSort("sans-serif:lang=zh") whose charset covers U+4E2D ('中'), or an
// empty path when none does.
FontFile fontconfig_cjk_fallback();

}  // namespace attnviz::detail
