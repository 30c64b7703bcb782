// Font files: fontconfig look-ups (primary and CJK fallback) and stb_truetype loading / rasterising.
#include "font.hpp"

#include <fmt/format.h>
#include <fontconfig/fontconfig.h>

#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/io/text_file.hpp"
#include "attnviz/text/unicode.hpp"

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
// memory when a FontSet is built, so nothing refers to it afterwards; and LeakSanitizer stays quiet).
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

namespace {

uint32_t be16(const std::vector<unsigned char>& b, uint64_t at) { return uint32_t(b[at]) << 8 | b[at + 1]; }
uint32_t be32(const std::vector<unsigned char>& b, uint64_t at) { return be16(b, at) << 16 | be16(b, at + 2); }

// Bytes stbtt_InitFont reads at fixed offsets inside a table (head.indexToLocFormat at 50,
// hhea.numberOfHMetrics at 34, maxp.numGlyphs at 4, cmap's numTables at 2); 0 = no fixed field.
uint64_t min_table_length(std::string_view tag) {
  if (tag == "head") return 54;
  if (tag == "hhea") return 36;
  if (tag == "maxp") return 6;
  if (tag == "cmap") return 4;
  return 0;
}

// Offset of face `face` in the file: 0 for a lone font, from the header of a .ttc collection.
uint64_t face_offset(const std::vector<unsigned char>& b, int face, const std::function<void(std::string)>& fail) {
  if (std::memcmp(b.data(), "ttcf", 4) != 0) {
    if (face != 0) fail("a single font has only face 0");
    return 0;
  }
  if (face < 0 || uint64_t(face) >= be32(b, 8)) fail(fmt::format("the collection has {} faces", be32(b, 8)));
  if (16 + 4 * uint64_t(face) > b.size()) fail("the collection header runs past the end of the file");
  return be32(b, 12 + 4 * uint64_t(face));
}

// stb_truetype trusts every offset in the file (no bounds checks): check the table directory,
// every table's extent, the fixed fields it reads and its cmap records against the file size
// first, so a truncated or garbage font is an Error, not a read past the buffer.
void check_font_bounds(const std::vector<unsigned char>& b, int face, const std::string& file) {
  const auto fail = [&](const std::string& why) {
    throw Error(fmt::format("{}: not a usable TrueType/OpenType font (face {}): {}", file, face, why));
  };
  if (b.size() < 12) fail(fmt::format("{} bytes, too short for a font header", b.size()));
  const uint64_t dir = face_offset(b, face, fail);
  if (dir + 12 > b.size()) fail("the table directory starts past the end of the file");
  const uint64_t n_tables = be16(b, dir + 4);
  if (dir + 12 + 16 * n_tables > b.size()) fail(fmt::format("the directory of {} tables is truncated", n_tables));
  std::set<std::string> tags;
  for (uint64_t i = 0; i < n_tables; ++i) {
    const uint64_t at = dir + 12 + 16 * i;
    const std::string tag(reinterpret_cast<const char*>(&b[at]), 4);
    const uint64_t offset = be32(b, at + 8), length = be32(b, at + 12);
    if (offset + length > b.size()) {
      fail(fmt::format("table '{}' ({} bytes at {}) runs past the end of the file ({} bytes; truncated?)",
                       printable_text(tag), length, offset, b.size()));
    }
    if (length < min_table_length(tag)) fail(fmt::format("table '{}' is only {} bytes", printable_text(tag), length));
    if (tag == "cmap") {
      const uint64_t n_maps = be16(b, offset + 2);
      if (4 + 8 * n_maps > length) fail("the cmap table's encoding records are truncated");
      for (uint64_t m = 0; m < n_maps; ++m) {
        if (be32(b, offset + 4 + 8 * m + 4) + 4 > length) fail("a cmap subtable lies outside the cmap table");
      }
    }
    tags.insert(tag);
  }
  for (const char* tag : {"cmap", "head", "hhea", "hmtx"}) {
    if (!tags.count(tag)) fail(fmt::format("no '{}' table", tag));
  }
  if (!tags.count("CFF ") && !(tags.count("glyf") && tags.count("loca"))) fail("no glyph outlines (glyf + loca, or CFF)");
}

}  // namespace

LoadedFont::LoadedFont(std::filesystem::path file, int face_index) : path(std::move(file)) {
  // Bounded, regular files only; 256 MiB holds the largest CJK collections.
  const std::string data = read_regular_file(path.string(), size_t{256} << 20);
  bytes.assign(data.begin(), data.end());
  check_font_bounds(bytes, face_index, path.string());
  const int offset = stbtt_GetFontOffsetForIndex(bytes.data(), face_index);
  if (offset < 0 || stbtt_InitFont(&info, bytes.data(), offset) == 0) {
    throw Error(fmt::format("{}: not a TrueType/OpenType font (face {})", path.string(), face_index));
  }
}

float LoadedFont::advance(int g, float scale) const {
  int advance_width = 0, left_bearing = 0;
  stbtt_GetGlyphHMetrics(&info, g, &advance_width, &left_bearing);
  return static_cast<float>(advance_width) * scale;
}

float LoadedFont::kern(int g1, int g2, float scale) const {
  return static_cast<float>(stbtt_GetGlyphKernAdvance(&info, g1, g2)) * scale;
}

GlyphBitmap LoadedFont::rasterise(int g, float scale) const {
  GlyphBitmap b;
  int x1 = 0, y1 = 0;
  stbtt_GetGlyphBitmapBox(&info, g, scale, scale, &b.x0, &b.y0, &x1, &y1);
  b.width = x1 - b.x0;
  b.height = y1 - b.y0;
  if (b.width <= 0 || b.height <= 0) return {};
  b.coverage.assign(static_cast<size_t>(b.width) * static_cast<size_t>(b.height), 0);
  stbtt_MakeGlyphBitmap(&info, b.coverage.data(), b.width, b.height, b.width, scale, scale, g);
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
