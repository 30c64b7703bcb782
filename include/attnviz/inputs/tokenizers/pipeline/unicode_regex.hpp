// Pre-tokenizer regexes (GPT-2's, Llama 3's, Qwen's, tokenizer.json "Split" patterns) with PCRE2:
// UTF-8, Unicode properties, JIT (private to inputs/).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct pcre2_real_code_8;

namespace attnviz {

class UnicodeRegex {
 public:
  // `pattern` in the Oniguruma dialect tokenizers use; \s and \S mean Unicode's White_Space as in
  // Oniguruma and Python's `regex` (PCRE2's own \s also takes U+180E, a space only before Unicode
  // 6.3), \w and \W Oniguruma's word characters. What the engines read differently (\h, \b,
  // nested classes, &&, \S or \W inside a class) and a pattern PCRE2 cannot compile are Errors
  // naming `what`.
  UnicodeRegex(std::string_view pattern, std::string what);
  ~UnicodeRegex();
  UnicodeRegex(UnicodeRegex&&) noexcept;
  UnicodeRegex& operator=(UnicodeRegex&&) noexcept;

  // The byte ranges [begin, end) of the non-overlapping matches in valid UTF-8 text, leftmost
  // first, as find_iter does (an empty match advances by one character).
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;

 private:
  std::unique_ptr<pcre2_real_code_8, void (*)(pcre2_real_code_8*)> code_;
  std::string what_;
};

// `literal` as a pattern that matches exactly it (regex::escape), also after
// with_white_space_classes.
std::string regex_escape(std::string_view literal);

// The pattern with \s, \S, \w and \W spelled out as Oniguruma's classes (exposed for tests).
std::string with_white_space_classes(std::string_view pattern, std::string_view what);

}  // namespace attnviz
