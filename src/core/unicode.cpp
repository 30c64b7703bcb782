// UTF-8 validation and decoding (RFC 3629) and terminal display width (utf8proc's widths, where
// terminals agree with them), used to align labels of tokens in tables and heatmaps.
#include "attnviz/core/unicode.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>

#include "attnviz/core/error.hpp"

namespace attnviz {
namespace {

constexpr char32_t k_replacement = 0xFFFD;
constexpr std::string_view k_ellipsis = "…";

// One step of decoding: the code point and its byte length, or valid = false with length 1 (so a
// caller skipping the bad byte resynchronises on the next lead byte).
struct Decoded {
  char32_t cp = k_replacement;
  int length = 1;
  bool valid = false;
};

bool is_continuation(unsigned char b) {
  return (b & 0xC0) == 0x80;
}

// RFC 3629 table 3.7: the lead byte fixes the length and the allowed range of the second byte,
// which is how overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code
// points above U+10FFFF (F4 90.., F5..FF) are rejected without decoding them first.
Decoded decode_one(std::string_view text, size_t pos) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return {b0, 1, true};
  int length = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  char32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {};  // stray continuation byte, C0/C1 (overlong), F5..FF (beyond U+10FFFF)
  }
  if (pos + static_cast<size_t>(length) > text.size()) return {};  // truncated
  for (int k = 1; k < length; ++k) {
    const auto b = static_cast<unsigned char>(text[pos + static_cast<size_t>(k)]);
    if (!is_continuation(b) || (k == 1 && (b < lo || b > hi))) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, length, true};
}

bool in(char32_t cp, char32_t first, char32_t last) {
  return cp >= first && cp <= last;
}

// Where utf8proc's width differs from what terminals draw (glibc's wcwidth, which most terminals
// use, xterm's and VTE's tables), the terminal's width; nullopt where utf8proc's stands.
std::optional<int> terminal_width(char32_t cp) {
  // Hangul Jamo medial vowels and final consonants join the syllable before them (glibc, xterm,
  // VTE: 0; utf8proc: 1, their East Asian Width).
  if (in(cp, 0x1160, 0x11FF) || in(cp, 0xD7B0, 0xD7FF)) return 0;
  // Prepended concatenation marks (the Arabic number sign U+0600, …) are format characters that
  // are drawn, spanning the digits after them (glibc: 1; utf8proc: 0, as for every Cf).
  if (in(cp, 0x600, 0x605) || cp == 0x6DD || cp == 0x70F || in(cp, 0x890, 0x891) || cp == 0x8E2 ||
      cp == 0x110BD || cp == 0x110CD) {
    return 1;
  }
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_MC:
      // Spacing combining marks take their own column, as the vowel sign of कि (glibc, xterm, VTE:
      // 1, 2 for the two East Asian Wide pairs; utf8proc: 0, as for every mark).
      return in(cp, 0x302E, 0x302F) || in(cp, 0x16FF0, 0x16FF1) ? 2 : 1;
    case UTF8PROC_CATEGORY_CN:
      // Unassigned code points of the blocks EastAsianWidth.txt reserves as Wide (CJK ideographs,
      // planes 2 and 3): 2, as VTE draws them; utf8proc: 1.
      if (in(cp, 0x3400, 0x4DBF) || in(cp, 0x4E00, 0x9FFF) || in(cp, 0xF900, 0xFAFF) ||
          in(cp, 0x20000, 0x2FFFD) || in(cp, 0x30000, 0x3FFFD)) {
        return 2;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

void append_escaped_control(std::string& out, char32_t cp) {
  switch (cp) {
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      break;
  }
  out += cp < 0x80 ? fmt::format("\\x{:02x}", static_cast<unsigned>(cp))
                   : fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
}

// C0 and C1 controls, and the line and paragraph separators U+2028 / U+2029: each may break the
// line or print nothing (glibc's wcwidth: not printable), so labels show them escaped.
bool is_control(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x2028 || cp == 0x2029;
}

// The 66 noncharacters (U+FDD0–FDEF and the last two code points of every plane): valid UTF-8, but
// not for interchange, and cairo refuses text holding one (an SVG or PDF figure would fail).
bool is_noncharacter(char32_t cp) {
  return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}

}  // namespace

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const Decoded d = decode_one(text, pos);
    if (!d.valid) return pos;
    pos += static_cast<size_t>(d.length);
  }
  return std::nullopt;
}

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Decoded d = decode_one(text, pos);
    if (!d.valid) {
      throw Error(fmt::format("invalid UTF-8 at byte {} (byte 0x{:02x}) in a text of {} bytes", pos,
                              static_cast<unsigned char>(text[pos]), text.size()));
    }
    out.push_back(d.cp);
    pos += static_cast<size_t>(d.length);
  }
  return out;
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Decoded d = decode_one(text, pos);
    if (!d.valid) {
      append_utf8(out, k_replacement);
    } else if (is_control(d.cp) || is_noncharacter(d.cp)) {
      append_escaped_control(out, d.cp);
    } else {
      out.append(text.substr(pos, static_cast<size_t>(d.length)));
    }
    pos += static_cast<size_t>(d.length);
  }
  return out;
}

int codepoint_width(char32_t cp) {
  if (cp == 0 || is_control(cp)) return 0;  // prints nothing visible; see printable_text
  if (cp < 0x300) return 1;                 // fast path: Latin-1 and Latin Extended
  if (const auto width = terminal_width(cp)) return *width;
  return utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
}

int display_width(std::string_view text) {
  int width = 0;
  for (size_t pos = 0; pos < text.size();) {
    const Decoded d = decode_one(text, pos);
    width += d.valid ? codepoint_width(d.cp) : 1;
    pos += static_cast<size_t>(d.length);
  }
  return width;
}

int widest_line(std::string_view text) {
  int widest = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    widest = std::max(widest, display_width(text.substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

std::string truncate_to_width(std::string_view text, int max_columns) {
  if (display_width(text) <= max_columns) return std::string(text);
  if (max_columns <= 0) return {};
  const int budget = max_columns - display_width(k_ellipsis);
  int width = 0;
  size_t end = 0;
  // Combining marks (width 0) after the last kept character stay with it.
  while (end < text.size()) {
    const Decoded d = decode_one(text, end);
    const int w = d.valid ? codepoint_width(d.cp) : 1;
    if (width + w > budget) break;
    width += w;
    end += static_cast<size_t>(d.length);
  }
  return std::string(text.substr(0, end)) + std::string(k_ellipsis);
}

std::string pad_to_width(std::string_view text, int columns, bool align_right) {
  const int pad = std::max(0, columns - display_width(text));
  std::string spaces(static_cast<size_t>(pad), ' ');
  return align_right ? spaces + std::string(text) : std::string(text) + spaces;
}

std::string_view strip_utf8_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace attnviz
