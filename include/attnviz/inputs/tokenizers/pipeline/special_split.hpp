// Special tokens written in a text, split out before the rest is tokenized, as transformers' slow
// tokenizers do with their no-split tokens (private to inputs/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz {

struct SpecialToken {
  std::string content;
  int64_t id = 0;
};

// A stretch of the text: [begin, end) in bytes, and the special token it is (nullptr: plain text).
struct SpecialSegment {
  size_t begin = 0;
  size_t end = 0;
  const SpecialToken* token = nullptr;
};

// The text cut at every occurrence of a token's content, leftmost first and, where several
// start at one byte, the longest (transformers' Trie.split). Plain stretches may be empty.
std::vector<SpecialSegment> split_specials(std::string_view text,
                                           const std::vector<SpecialToken>& tokens);

}  // namespace attnviz
