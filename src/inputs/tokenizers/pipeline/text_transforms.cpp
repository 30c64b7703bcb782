// Unicode normalization, lowercase and character maps over normalized text, keeping origins.
#include "text_transforms.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

struct OriginChar {
  char32_t cp;
  size_t origin;
};

int combining_class(char32_t cp) {
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
}

utf8proc_option_t form_options(UnicodeForm form) {
  int options = UTF8PROC_STABLE;
  if (form == UnicodeForm::nfc || form == UnicodeForm::nfkc) options |= UTF8PROC_COMPOSE;
  if (form == UnicodeForm::nfd || form == UnicodeForm::nfkd) options |= UTF8PROC_DECOMPOSE;
  if (form == UnicodeForm::nfkc || form == UnicodeForm::nfkd) options |= UTF8PROC_COMPAT;
  return static_cast<utf8proc_option_t>(options);
}

// The whole text in `form`, by utf8proc: what the origin-keeping path below must produce.
std::string utf8proc_normalized(const std::string& text, UnicodeForm form) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &out, form_options(form));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  if (n < 0)
    throw Error(fmt::format("internal: Unicode normalization failed: {}", utf8proc_errmsg(n)));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

// Full (canonical or compatibility) decomposition of each character, every part keeping the
// character's origin, then canonical ordering: a stable sort of each run of non-starters by
// combining class (UAX #15, D108).
std::vector<OriginChar> decompose(const NormalizedText& text, bool compat) {
  std::vector<OriginChar> out;
  const int options = UTF8PROC_DECOMPOSE | (compat ? UTF8PROC_COMPAT : 0);
  for_each_char(text.text, [&](char32_t cp, size_t at, size_t) {
    utf8proc_int32_t parts[32];
    int boundclass = 0;
    const utf8proc_ssize_t n =
        utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), parts, 32,
                                static_cast<utf8proc_option_t>(options), &boundclass);
    if (n < 0 || n > 32)
      throw Error(fmt::format("internal: cannot decompose U+{:04X}", static_cast<uint32_t>(cp)));
    for (utf8proc_ssize_t k = 0; k < n; ++k)
      out.push_back({static_cast<char32_t>(parts[k]), text.origin[at]});
  });
  for (size_t i = 1; i < out.size(); ++i) {
    for (size_t j = i; j > 0; --j) {
      const int cc = combining_class(out[j].cp);
      if (cc == 0 || combining_class(out[j - 1].cp) <= cc) break;
      std::swap(out[j], out[j - 1]);
    }
  }
  return out;
}

// The primary composite of (starter, c), if any (composition exclusions and Hangul included), by
// letting utf8proc compose the pair.
std::optional<char32_t> compose_pair(char32_t starter, char32_t c) {
  utf8proc_int32_t pair[2] = {static_cast<utf8proc_int32_t>(starter),
                              static_cast<utf8proc_int32_t>(c)};
  const utf8proc_ssize_t n = utf8proc_normalize_utf32(
      pair, 2, static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
  if (n == 1) return static_cast<char32_t>(pair[0]);
  return std::nullopt;
}

// Canonical composition (UAX #15, D117), as the standard's sample code runs it: each character
// composes with the last starter unless a character between them has a combining class >= its.
std::vector<OriginChar> compose(std::vector<OriginChar> chars) {
  if (chars.empty()) return chars;
  size_t starter = 0;
  int last_class = combining_class(chars[0].cp) == 0 ? 0 : 256;
  size_t kept = 1;
  for (size_t i = 1; i < chars.size(); ++i) {
    const int cc = combining_class(chars[i].cp);
    const bool reachable = last_class < cc || last_class == 0;
    if (const auto composite =
            reachable ? compose_pair(chars[starter].cp, chars[i].cp) : std::nullopt) {
      chars[starter].cp = *composite;  // keeps the starter's origin
      continue;
    }
    if (cc == 0) starter = kept;
    last_class = cc;
    chars[kept++] = chars[i];
  }
  chars.resize(kept);
  return chars;
}

}  // namespace

NormalizedText map_chars(const NormalizedText& text,
                         const std::function<void(char32_t, std::string& out)>& f) {
  NormalizedBuilder builder;
  std::string piece;
  for_each_char(text.text, [&](char32_t cp, size_t at, size_t length) {
    piece.clear();
    f(cp, piece);
    if (!piece.empty()) builder.append(piece, text.origin[at], text.origin[at + length]);
  });
  return builder.finish(text.input_end());
}

NormalizedText unicode_normalize(const NormalizedText& text, UnicodeForm form) {
  const std::string expected = utf8proc_normalized(text.text, form);
  if (expected == text.text) return text;  // already normalized: every origin stays
  const bool compat = form == UnicodeForm::nfkc || form == UnicodeForm::nfkd;
  std::vector<OriginChar> chars = decompose(text, compat);
  if (form == UnicodeForm::nfc || form == UnicodeForm::nfkc) chars = compose(std::move(chars));
  NormalizedBuilder builder;
  std::string bytes;
  for (const OriginChar& c : chars) {
    bytes.clear();
    append_utf8(bytes, c.cp);
    builder.append(bytes, c.origin, c.origin);
  }
  NormalizedText out = builder.finish(text.input_end());
  // The character-by-character path must agree with utf8proc's own normalization of the text.
  if (out.text != expected)
    throw Error("internal: Unicode normalization with origins differs from utf8proc's");
  return out;
}

NormalizedText lowercase_text(const NormalizedText& text) {
  return map_chars(text, [](char32_t cp, std::string& out) {
    if (cp == 0x130) {
      out += "i\u0307";
      return;
    }
    append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
  });
}

}  // namespace attnviz
