// Font files: fontconfig look-ups (primary and CJK fallback) and stb_truetype loading /
// rasterising.
#include "font.hpp"

#include <fmt/format.h>
#include <fontconfig/fontconfig.h>
#include <hb.h>

#include <bit>
#include <memory>

#include "attnviz/core/error.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz::detail {
namespace {

constexpr FcChar32 k_cjk_probe = 0x4E2D;  // '中': a font covering it draws Chinese tokens

struct PatternDeleter {
  void operator()(FcPattern* p) const { FcPatternDestroy(p); }
};
using PatternPtr = std::unique_ptr<FcPattern, PatternDeleter>;
struct FontSetDeleter {
  void operator()(FcFontSet* s) const { FcFontSetDestroy(s); }
};

struct ConfigDeleter {
  void operator()(FcConfig* c) const { FcConfigDestroy(c); }
};

// One configuration per process, loaded on first use and destroyed at exit (fonts are read into
// memory when a FontSet is built, so nothing refers to it afterwards; and LeakSanitizer stays
// quiet).
FcConfig* config() {
  static const std::unique_ptr<FcConfig, ConfigDeleter> cfg(FcInitLoadConfigAndFonts());
  if (!cfg) throw Error("fontconfig: cannot load its configuration (is fontconfig installed?)");
  return cfg.get();
}

PatternPtr prepared_pattern(const std::string& pattern) {
  PatternPtr p(FcNameParse(reinterpret_cast<const FcChar8*>(pattern.c_str())));
  if (!p) throw usage_error(fmt::format("--font {}: not a fontconfig pattern", pattern));
  FcConfigSubstitute(config(), p.get(), FcMatchPattern);
  FcDefaultSubstitute(p.get());
  return p;
}

FontFile file_of(FcPattern* font) {
  FcChar8* file = nullptr;
  int index = 0;
  if (FcPatternGetString(font, FC_FILE, 0, &file) != FcResultMatch || !file) return {};
  FcPatternGetInteger(font, FC_INDEX, 0, &index);
  return {reinterpret_cast<const char*>(file), index};
}

}  // namespace

LoadedFont::LoadedFont(std::filesystem::path file, int face)
    : path(std::move(file)), face_index(face) {
  // Bounded, regular files only; 256 MiB holds the largest CJK collections.
  const std::string data = read_regular_file(path.string(), size_t{256} << 20);
  bytes.assign(data.begin(), data.end());
  check_font_bounds(bytes, face_index, path.string());
  const int offset = stbtt_GetFontOffsetForIndex(bytes.data(), face_index);
  if (offset < 0 || stbtt_InitFont(&info, bytes.data(), offset) == 0) {
    throw Error(
        fmt::format("{}: not a TrueType/OpenType font (face {})", path.string(), face_index));
  }
  // The blob borrows `bytes`, which live as long as this font; HarfBuzz checks the tables itself.
  hb_blob_t* blob = hb_blob_create(reinterpret_cast<const char*>(bytes.data()),
                                   static_cast<unsigned>(bytes.size()), HB_MEMORY_MODE_READONLY,
                                   nullptr, nullptr);
  hb_face_t* face_ = hb_face_create(blob, static_cast<unsigned>(face_index));
  hb_blob_destroy(blob);
  hb_font_t* font = hb_font_create(face_);
  const int upem = static_cast<int>(hb_face_get_upem(face_));
  hb_face_destroy(face_);
  hb_font_set_scale(font, upem, upem);  // positions in font units, exact integers
  hb_font_make_immutable(font);
  shaper = {font, hb_font_destroy};
}

float LoadedFont::advance(int g, float scale) const {
  int advance_width = 0, left_bearing = 0;
  stbtt_GetGlyphHMetrics(&info, g, &advance_width, &left_bearing);
  return static_cast<float>(advance_width) * scale;
}

std::shared_ptr<const GlyphBitmap> LoadedFont::rasterise(int g, float scale) const {
  constexpr size_t k_max_cached = 1
                                  << 14;  // glyphs × sizes: beyond it (a huge CJK text), no caching
  const uint64_t key = uint64_t{std::bit_cast<uint32_t>(scale)} << 32 | static_cast<uint32_t>(g);
  {
    const std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  auto b = std::make_shared<GlyphBitmap>();
  int x1 = 0, y1 = 0;
  stbtt_GetGlyphBitmapBox(&info, g, scale, scale, &b->x0, &b->y0, &x1, &y1);
  b->width = x1 - b->x0;
  b->height = y1 - b->y0;
  if (b->width <= 0 || b->height <= 0) {
    *b = {};
  } else {
    b->coverage.assign(static_cast<size_t>(b->width) * static_cast<size_t>(b->height), 0);
    stbtt_MakeGlyphBitmap(&info, b->coverage.data(), b->width, b->height, b->width, scale, scale,
                          g);
  }
  const std::lock_guard lock(cache_mutex_);
  if (cache_.size() < k_max_cached) cache_.emplace(key, b);
  return b;
}

FontFile fontconfig_match(const std::string& pattern, bool require_family) {
  PatternPtr p = prepared_pattern(pattern);
  FcChar8* wanted = nullptr;
  FcPatternGetString(p.get(), FC_FAMILY, 0, &wanted);
  FcResult result = FcResultNoMatch;
  PatternPtr match(FcFontMatch(config(), p.get(), &result));
  if (!match || result != FcResultMatch) return {};
  if (require_family && wanted) {
    bool found = false;
    FcChar8* family = nullptr;
    for (int k = 0; FcPatternGetString(match.get(), FC_FAMILY, k, &family) == FcResultMatch; ++k) {
      found = found || FcStrCmpIgnoreCase(family, wanted) == 0;
    }
    if (!found) return {};
  }
  return file_of(match.get());
}

FontFile fontconfig_cjk_fallback() {
  PatternPtr p = prepared_pattern("sans-serif:lang=zh");
  FcResult result = FcResultNoMatch;
  std::unique_ptr<FcFontSet, FontSetDeleter> sorted(
      FcFontSort(config(), p.get(), FcFalse, nullptr, &result));
  if (!sorted) return {};
  for (int i = 0; i < sorted->nfont; ++i) {
    FcCharSet* charset = nullptr;
    if (FcPatternGetCharSet(sorted->fonts[i], FC_CHARSET, 0, &charset) != FcResultMatch) continue;
    if (FcCharSetHasChar(charset, k_cjk_probe)) return file_of(sorted->fonts[i]);
  }
  return {};
}

}  // namespace attnviz::detail
