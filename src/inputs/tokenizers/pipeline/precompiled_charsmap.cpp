// SentencePiece's precompiled charsmap: the darts-clone trie walk (darts.h's commonPrefixSearch and
// its unit encoding) and Hugging Face tokenizers' Precompiled normalizer over grapheme clusters.
#include "attnviz/inputs/tokenizers/pipeline/precompiled_charsmap.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

// A darts-clone unit: bit 8 says the node has a leaf; the leaf unit's low 31 bits are its value;
// the label is the low byte (bit 31 set on leaves, so no byte matches one); the offset to the
// children is bits 10–31, shifted left by 8 when bit 9 is set.
bool has_leaf(uint32_t unit) {
  return ((unit >> 8) & 1) == 1;
}
uint32_t value(uint32_t unit) {
  return unit & ((1u << 31) - 1);
}
uint32_t label(uint32_t unit) {
  return unit & ((1u << 31) | 0xFF);
}
uint32_t offset(uint32_t unit) {
  return (unit >> 10) << ((unit & (1u << 9)) >> 6);
}

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view bytes, std::string where)
    : where_(std::move(where)) {
  if (bytes.size() < 4)
    fail(fmt::format("{} bytes, expected at least 4 (the trie's size)", bytes.size()));
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const uint32_t trie_bytes =
      uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > bytes.size() - 4) {
    fail(
        fmt::format("its trie is {} bytes, expected a positive multiple of 4 within the {} bytes "
                    "after the size",
                    trie_bytes, bytes.size() - 4));
  }
  units_.resize(trie_bytes / 4);
  for (size_t i = 0; i < units_.size(); ++i) {
    const unsigned char* u = p + 4 + 4 * i;
    units_[i] = uint32_t{u[0]} | uint32_t{u[1]} << 8 | uint32_t{u[2]} << 16 | uint32_t{u[3]} << 24;
  }
  replacements_ = std::string(bytes.substr(4 + trie_bytes));
  if (const auto bad = find_invalid_utf8(replacements_)) {
    fail(fmt::format("its replacements are not valid UTF-8 (byte {} of {})", *bad,
                     replacements_.size()));
  }
}

void PrecompiledCharsmap::fail(std::string_view what) const {
  throw Error(fmt::format("{}: SentencePiece's precompiled charsmap: {}", where_, what));
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  size_t node = offset(units_[0]);
  for (const char c : chunk) {
    const auto byte = static_cast<unsigned char>(c);
    node ^= byte;
    if (node >= units_.size())
      fail(fmt::format("the trie leads to unit {} of {}", node, units_.size()));
    const uint32_t unit = units_[node];
    if (label(unit) != byte) return std::nullopt;
    node ^= offset(unit);
    if (!has_leaf(unit)) continue;
    if (node >= units_.size())
      fail(fmt::format("the trie leads to unit {} of {}", node, units_.size()));
    const size_t begin = value(units_[node]);
    if (begin >= replacements_.size()) {
      fail(
          fmt::format("a rule's replacement starts at byte {} of {}", begin, replacements_.size()));
    }
    if ((static_cast<unsigned char>(replacements_[begin]) & 0xC0) == 0x80)
      fail(fmt::format("a rule's replacement starts inside a character (byte {})", begin));
    const size_t end = replacements_.find('\0', begin);
    return std::string_view(replacements_)
        .substr(begin, end == std::string::npos ? end : end - begin);
  }
  return std::nullopt;
}

NormalizedText PrecompiledCharsmap::normalize(const NormalizedText& text) const {
  struct Char {
    size_t at, len;
  };
  std::vector<Char> chars;
  std::vector<char32_t> points;
  for_each_char(text.text, [&](char32_t cp, size_t at, size_t len) {
    chars.push_back({at, len});
    points.push_back(cp);
  });
  NormalizedBuilder out;
  const auto keep = [&](size_t begin, size_t end, std::string_view with) {
    out.append(with, text.origin[begin], text.origin[end]);
  };
  utf8proc_int32_t state = 0;
  for (size_t first = 0; first < chars.size();) {
    size_t last = first + 1;  // the cluster is chars [first, last)
    while (last < chars.size() &&
           !utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(points[last - 1]),
                                             static_cast<utf8proc_int32_t>(points[last]), &state)) {
      ++last;
    }
    const size_t begin = chars[first].at, end = chars[last - 1].at + chars[last - 1].len;
    const std::string_view cluster = std::string_view(text.text).substr(begin, end - begin);
    std::optional<std::string_view> whole;
    if (cluster.size() < 6) whole = transform(cluster);
    if (whole) {
      keep(begin, end, *whole);
    } else {
      for (size_t c = first; c < last; ++c) {
        const std::string_view ch = std::string_view(text.text).substr(chars[c].at, chars[c].len);
        const auto rule = transform(ch);
        keep(chars[c].at, chars[c].at + chars[c].len, rule ? *rule : ch);
      }
    }
    first = last;
  }
  return out.finish(text.origin.back());
}

}  // namespace attnviz
