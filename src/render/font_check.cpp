// Bounds checks of a TrueType/OpenType file before stb_truetype, which reads wherever the file's
// offsets point: a truncated or garbage font must be an Error, not a read past the buffer.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "font.hpp"

namespace attnviz::detail {
namespace {

using Bytes = std::vector<unsigned char>;
using Fail = std::function<void(const std::string&)>;  // throws
struct Table {
  uint64_t offset = 0, length = 0;
};
using Tables = std::map<std::string, Table>;

uint32_t be16(const Bytes& b, uint64_t at) {
  return uint32_t(b[at]) << 8 | b[at + 1];
}
uint32_t be32(const Bytes& b, uint64_t at) {
  return be16(b, at) << 16 | be16(b, at + 2);
}

// Bytes stbtt_InitFont reads at fixed offsets inside a table (head.indexToLocFormat at 50,
// hhea.numberOfHMetrics at 34, maxp.numGlyphs at 4, cmap's numTables at 2).
uint64_t min_table_length(std::string_view tag) {
  if (tag == "head") return 54;
  if (tag == "hhea") return 36;
  if (tag == "maxp") return 6;
  if (tag == "cmap") return 4;
  return 0;
}

// Offset of face `face` in the file: 0 for a lone font, from the header of a .ttc collection.
uint64_t face_offset(const Bytes& b, int face, const Fail& fail) {
  if (std::memcmp(b.data(), "ttcf", 4) != 0) {
    if (face != 0) fail("a single font has only face 0");
    return 0;
  }
  if (face < 0 || uint64_t(face) >= be32(b, 8))
    fail(fmt::format("the collection has {} faces", be32(b, 8)));
  if (16 + 4 * uint64_t(face) > b.size())
    fail("the collection header runs past the end of the file");
  return be32(b, 12 + 4 * uint64_t(face));
}

// The table directory at `dir`: every table inside the file and long enough for its fixed fields.
Tables read_directory(const Bytes& b, uint64_t dir, const Fail& fail) {
  if (dir + 12 > b.size()) fail("the table directory starts past the end of the file");
  const uint64_t n_tables = be16(b, dir + 4);
  if (dir + 12 + 16 * n_tables > b.size())
    fail(fmt::format("the directory of {} tables is truncated", n_tables));
  Tables tables;
  for (uint64_t i = 0; i < n_tables; ++i) {
    const uint64_t at = dir + 12 + 16 * i;
    const std::string tag = printable_text(std::string(reinterpret_cast<const char*>(&b[at]), 4));
    const Table t{be32(b, at + 8), be32(b, at + 12)};
    if (t.offset + t.length > b.size()) {
      fail(fmt::format(
          "table '{}' ({} bytes at {}) runs past the end of the file ({} bytes; truncated?)", tag,
          t.length, t.offset, b.size()));
    }
    if (t.length < min_table_length(tag))
      fail(fmt::format("table '{}' is only {} bytes", tag, t.length));
    tables[tag] = t;
  }
  for (const char* tag : {"cmap", "head", "hhea", "hmtx"}) {
    if (!tables.count(tag)) fail(fmt::format("no '{}' table", tag));
  }
  return tables;
}

// stbtt_InitFont walks cmap's encoding records and keeps one subtable's offset.
void check_cmap(const Bytes& b, const Table& cmap, const Fail& fail) {
  const uint64_t n_maps = be16(b, cmap.offset + 2);
  if (4 + 8 * n_maps > cmap.length) fail("the cmap table's encoding records are truncated");
  for (uint64_t m = 0; m < n_maps; ++m) {
    if (be32(b, cmap.offset + 4 + 8 * m + 4) + 4 > cmap.length)
      fail("a cmap subtable lies outside the cmap table");
  }
}

// Per-glyph look-ups: hmtx holds numberOfHMetrics (advance, bearing) pairs, then one bearing per
// further glyph; loca holds numGlyphs + 1 offsets, each inside glyf (stb reads loca[g], loca[g + 1]
// and the bytes of glyf between them).
void check_glyph_tables(const Bytes& b, const Tables& t, const Fail& fail) {
  if (!t.count("maxp")) fail("no 'maxp' table");
  const uint64_t n_glyphs = be16(b, t.at("maxp").offset + 4);
  const uint64_t n_metrics = be16(b, t.at("hhea").offset + 34);
  if (4 * n_metrics + 2 * (std::max(n_glyphs, n_metrics) - n_metrics) > t.at("hmtx").length) {
    fail(fmt::format("hmtx is too short for {} glyphs with {} metrics", n_glyphs, n_metrics));
  }
  if (t.count("CFF ")) return;
  if (!t.count("glyf") || !t.count("loca")) fail("no glyph outlines (glyf + loca, or CFF)");
  const bool long_offsets = be16(b, t.at("head").offset + 50) != 0;
  const Table loca = t.at("loca");
  if ((n_glyphs + 1) * (long_offsets ? 4 : 2) > loca.length)
    fail(fmt::format("loca is too short for {} glyphs", n_glyphs));
  for (uint64_t g = 0; g <= n_glyphs; ++g) {
    const uint64_t at =
        long_offsets ? be32(b, loca.offset + 4 * g) : 2 * uint64_t(be16(b, loca.offset + 2 * g));
    if (at > t.at("glyf").length) fail(fmt::format("glyph {} starts past the end of glyf", g));
  }
}

}  // namespace

void check_font_bounds(const Bytes& bytes, int face, const std::string& file) {
  const Fail fail = [&](const std::string& why) {
    throw Error(
        fmt::format("{}: not a usable TrueType/OpenType font (face {}): {}", file, face, why));
  };
  if (bytes.size() < 12) fail(fmt::format("{} bytes, too short for a font header", bytes.size()));
  const Tables tables = read_directory(bytes, face_offset(bytes, face, fail), fail);
  check_cmap(bytes, tables.at("cmap"), fail);
  check_glyph_tables(bytes, tables, fail);
}

}  // namespace attnviz::detail
