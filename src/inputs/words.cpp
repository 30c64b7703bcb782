// Whitespace words of a text, and which word each token's bytes fall in.
#include "attnviz/inputs/words.hpp"

namespace attnviz {

namespace {

// The length of the whitespace character at text[at] (str.split()'s: ASCII whitespace and the
// separators of U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000,
// U+001C–U+001F), or 0.
size_t space_at(std::string_view text, size_t at) {
  const auto b = static_cast<unsigned char>(text[at]);
  if (b == ' ' || (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x1F)) return 1;
  const auto next = [&](size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0;
  };
  if (b == 0xC2 && (next(1) == 0x85 || next(1) == 0xA0)) return 2;
  if (b == 0xE1 && next(1) == 0x9A && next(2) == 0x80) return 3;  // U+1680
  if (b == 0xE2 && next(1) == 0x80) {
    const auto c = next(2);
    if ((c >= 0x80 && c <= 0x8A) || c == 0xA8 || c == 0xA9 || c == 0xAF) return 3;
  }
  if (b == 0xE2 && next(1) == 0x81 && next(2) == 0x9F) return 3;  // U+205F
  if (b == 0xE3 && next(1) == 0x80 && next(2) == 0x80) return 3;  // U+3000
  return 0;
}

// word[i]: the word byte i is part of, −1 for whitespace.
std::vector<int> word_of_bytes(std::string_view text) {
  std::vector<int> word(text.size(), -1);
  int n = -1;
  bool inside = false;
  for (size_t at = 0; at < text.size();) {
    if (const size_t s = space_at(text, at); s > 0) {
      inside = false;
      at += s;
      continue;
    }
    if (!inside) ++n;
    inside = true;
    word[at++] = n;
  }
  return word;
}

}  // namespace

std::vector<std::string> split_words(std::string_view text) {
  const std::vector<int> word = word_of_bytes(text);
  std::vector<std::string> words;
  for (size_t at = 0; at < text.size(); ++at) {
    if (word[at] < 0) continue;
    if (word[at] == static_cast<int>(words.size())) words.emplace_back();
    words.back() += text[at];
  }
  return words;
}

std::vector<int> word_of_pieces(std::string_view text, const std::vector<TokenPiece>& pieces) {
  const std::vector<int> word = word_of_bytes(text);
  std::vector<int> out;
  for (const TokenPiece& p : pieces) {
    int w = -1;
    for (size_t at = p.begin; !p.added && at < text.size(); ++at) {
      if (word[at] >= 0) {
        w = word[at];
        break;
      }
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace attnviz
