// GPT-2's pre-tokenizer regex.
#include "attnviz/inputs/tokenizers/pipeline/gpt2_pretokenizer.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"

namespace attnviz {

const UnicodeRegex& gpt2_regex() {
  // The pattern of GPT-2's encoder.py and of Hugging Face's ByteLevel pre-tokenizer; \s is
  // White_Space (UnicodeRegex). \p{L} and \p{N} are PCRE2's Unicode version (14.0 in PCRE2 10.42):
  // letters added later are not letters here. Compiled once (thread-safe static).
  static const UnicodeRegex regex(
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
      "GPT-2 pre-tokenizer");
  return regex;
}

std::vector<std::pair<size_t, size_t>> gpt2_pretokenize(std::string_view text,
                                                        std::string_view what) {
  if (const auto bad = find_invalid_utf8(text)) {
    throw Error(fmt::format("{}: invalid UTF-8 at byte {}", what, *bad));
  }
  std::vector<std::pair<size_t, size_t>> pieces = gpt2_regex().find_all(text);
  // Every character matches one alternative (\s, \p{L}, \p{N} or none of them), so the matches
  // are adjacent and never empty; anything else would drop text silently.
  size_t pos = 0;
  for (const auto& [begin, end] : pieces) {
    if (begin != pos || end <= begin) {
      throw Error(
          fmt::format("{}: the GPT-2 pre-tokenizer skipped bytes {}..{}", what, pos, begin));
    }
    pos = end;
  }
  if (pos != text.size())
    throw Error(
        fmt::format("{}: the GPT-2 pre-tokenizer skipped bytes {}..{}", what, pos, text.size()));
  return pieces;
}

}  // namespace attnviz
