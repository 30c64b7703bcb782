// A PCRE2 regex (UTF + UCP) and all its matches in a text, for the tokenizer.json parts whose
// pattern is a regex: Replace, Split, Whitespace (private to inputs/).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz {

class RegexFinder {
 public:
  // Throws Error("does not compile at offset N: …") for a pattern PCRE2 refuses.
  explicit RegexFinder(std::string_view pattern);
  ~RegexFinder();
  RegexFinder(const RegexFinder&) = delete;
  RegexFinder& operator=(const RegexFinder&) = delete;

  // The matches, [begin, end) in bytes, left to right, not overlapping; as Rust's and
  // Oniguruma's find_iter, an empty match is taken and the search goes on one character later
  // (never an empty match where the previous match ended). `text` must be valid UTF-8.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;

 private:
  struct Code;
  Code* code_;
};

// `literal` as a pattern that matches exactly it (regex::escape).
std::string regex_escape(std::string_view literal);

}  // namespace attnviz
