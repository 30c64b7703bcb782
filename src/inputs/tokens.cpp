// Reading token files and id lists, with errors that point at the offending byte or word.
#include "attnviz/inputs/tokens.hpp"

#include <fmt/format.h>

#include <charconv>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
}  // namespace

std::vector<std::string> split_tokens(std::string_view text, const std::string& what) {
  text = strip_utf8_bom(text);
  if (auto bad = find_invalid_utf8(text)) {
    throw Error(fmt::format("{}: invalid UTF-8 at byte {}", what, *bad));
  }
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) tokens.emplace_back(text.substr(start, i - start));
  }
  if (tokens.empty()) throw Error(fmt::format("{}: no tokens (the input is empty)", what));
  return tokens;
}

std::vector<std::string> read_tokens(const std::string& path) {
  return split_tokens(read_text_file(path), path == "-" ? "standard input" : path);
}

std::vector<int64_t> parse_ids(std::string_view text, const std::string& what) {
  text = strip_utf8_bom(text);
  std::vector<int64_t> ids;
  size_t i = 0;
  auto is_sep = [](char c) { return is_space(c) || c == ','; };
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_sep(text[i])) ++i;
    if (i == start) break;
    const std::string_view word = text.substr(start, i - start);
    int64_t id = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
    if (ec != std::errc() || end != word.data() + word.size() || id < 0) {
      throw Error(fmt::format("{}: '{}' is not a token id (a non-negative integer)", what, word));
    }
    ids.push_back(id);
  }
  if (ids.empty()) throw Error(fmt::format("{}: no token ids", what));
  return ids;
}

}  // namespace attnviz
