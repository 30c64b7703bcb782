// Base64 encoding and strict decoding (RFC 4648 §4).
#include "attnviz/core/base64.hpp"

#include <array>
#include <cstdint>

namespace attnviz {

namespace {

constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Each byte's 6-bit value, or -1.
constexpr std::array<int8_t, 256> decode_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i)
    t[static_cast<unsigned char>(k_alphabet[i])] = static_cast<int8_t>(i);
  return t;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += k_alphabet[v >> 18];
    out += k_alphabet[(v >> 12) & 63];
    out += k_alphabet[(v >> 6) & 63];
    out += k_alphabet[v & 63];
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (rest == 2 ? uint32_t{p[i + 1]} << 8 : 0);
    out += k_alphabet[v >> 18];
    out += k_alphabet[(v >> 12) & 63];
    out += rest == 2 ? k_alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  static constexpr auto k_table = decode_table();
  if (text.size() % 4 != 0) return std::nullopt;
  const size_t pads = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      const bool pad = last && k >= 4 - pads;
      const int8_t d = pad ? 0 : k_table[static_cast<unsigned char>(text[i + k])];
      if (d < 0) return std::nullopt;  // '=' inside the text, or a character outside the alphabet
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    const size_t n = last ? 3 - pads : 3;
    if (last && pads > 0 && (v & ((1u << (8 * pads)) - 1)) != 0) return std::nullopt;
    for (size_t k = 0; k < n; ++k) out += static_cast<char>((v >> (16 - 8 * k)) & 0xFF);
  }
  return out;
}

}  // namespace attnviz
