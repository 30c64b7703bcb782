// GPT-2's byte ↔ character map and the labels of byte pieces.
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"

#include <fmt/format.h>

#include <array>

#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

bool printable_byte(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

// The table of bytes_to_unicode: printable bytes keep their value, the others take 256 + n in
// byte order.
const std::array<char32_t, 256>& byte_table() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b)
      t[static_cast<size_t>(b)] = printable_byte(b) ? static_cast<char32_t>(b) : next++;
    return t;
  }();
  return table;
}

// The inverse: code points below 256 + 68 back to their byte; -1 outside the alphabet.
const std::array<int, 324>& unicode_table() {
  static const std::array<int, 324> table = [] {
    std::array<int, 324> t{};
    t.fill(-1);
    for (int b = 0; b < 256; ++b) t[byte_table()[static_cast<size_t>(b)]] = b;
    return t;
  }();
  return table;
}

}  // namespace

char32_t byte_to_unicode(uint8_t byte) {
  return byte_table()[byte];
}

std::optional<std::string> byte_level_decode(std::string_view token) {
  if (find_invalid_utf8(token)) return std::nullopt;
  std::string bytes;
  for (const char32_t cp : decode_utf8(token)) {
    if (cp >= unicode_table().size() || unicode_table()[cp] < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(unicode_table()[cp]));
  }
  return bytes;
}

std::string byte_label(std::string_view bytes) {
  std::string label;
  if (!bytes.empty() && bytes.front() == ' ') {
    label = "\u2423";  // ␣: a leading space, which GPT-2 glues to the word after it
    bytes.remove_prefix(1);
  }
  while (!bytes.empty()) {
    const auto bad = find_invalid_utf8(bytes);
    const size_t valid = bad ? *bad : bytes.size();
    label += printable_text(bytes.substr(0, valid));
    if (!bad) break;
    // One byte of a sequence the piece holds only part of; the next byte starts afresh.
    label += fmt::format("<0x{:02X}>", static_cast<unsigned char>(bytes[valid]));
    bytes.remove_prefix(valid + 1);
  }
  return label;
}

}  // namespace attnviz
