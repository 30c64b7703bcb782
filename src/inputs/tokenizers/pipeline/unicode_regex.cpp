// PCRE2 for the pre-tokenizer patterns.
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

// Oniguruma's word characters (\w), Unicode's as UTS #18 defines them: alphabetic, marks, decimal
// digits, connector punctuation, joiners (PCRE2 10.42's \w is letters, all numbers and "_").
constexpr std::string_view k_word = R"(\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D})";

// Unicode's White_Space property (PropList.txt), what \s means in Oniguruma and Python's `regex`.
constexpr std::string_view k_white_space =
    R"(\t-\r\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

void free_code(pcre2_real_code_8* code) {
  pcre2_code_free(code);
}

}  // namespace

std::string with_white_space_classes(std::string_view pattern, std::string_view what) {
  const auto refuse = [&](std::string_view why) {
    throw Error(
        fmt::format("{}: the regex '{}': {} (attnviz runs tokenizers' Oniguruma patterns on PCRE2)",
                    what, printable_text(pattern), why));
  };
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[++i];
      if (next == 's' || next == 'w') {
        const std::string_view set = next == 's' ? k_white_space : k_word;
        out += in_class ? std::string(set) : fmt::format("[{}]", set);
      } else if (next == 'S' || next == 'W') {
        if (in_class) refuse(fmt::format("\\{} inside a character class is not supported", next));
        out += fmt::format("[^{}]", next == 'S' ? k_white_space : k_word);
      } else if (next == 'h' || next == 'H') {
        refuse(fmt::format("\\{} is a hexadecimal digit in Oniguruma and horizontal space in PCRE2",
                           next));
      } else if (next == 'b' || next == 'B') {
        refuse(
            fmt::format("\\{} (a word boundary) follows each engine's own word characters", next));
      } else {
        out += c;
        out += next;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal, not the end of the class.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (in_class && c == '[') {
      // [:alpha:] is a POSIX class in both engines; any other '[' opens a nested set in Oniguruma.
      const size_t close = pattern.find(":]", i + 2);
      if (i + 1 < pattern.size() && pattern[i + 1] == ':' && close != std::string_view::npos) {
        out.append(pattern.substr(i, close + 2 - i));
        i = close + 1;
        continue;
      }
      refuse("a character class inside a class (a nested set in Oniguruma, a '[' in PCRE2)");
    }
    if (in_class && c == '&' && i + 1 < pattern.size() && pattern[i + 1] == '&') {
      refuse("&& (Oniguruma's class intersection) is not supported");
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

UnicodeRegex::UnicodeRegex(std::string_view pattern, std::string what)
    : code_(nullptr, &free_code), what_(std::move(what)) {
  const std::string text = with_white_space_classes(pattern, what_);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code == nullptr) {
    throw Error(fmt::format("{}: the regex '{}' does not compile (at {}): {}", what_,
                            printable_text(pattern), offset, pcre2_message(error)));
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // no JIT: the interpreter runs it
  code_.reset(code);
}

UnicodeRegex::~UnicodeRegex() = default;
UnicodeRegex::UnicodeRegex(UnicodeRegex&&) noexcept = default;
UnicodeRegex& UnicodeRegex::operator=(UnicodeRegex&&) noexcept = default;

namespace {

// PCRE2's match limit counts the steps tried from one start position. A text is given a total
// budget of steps across all of its calls, so a pattern that backtracks at every position ends in
// an Error naming it instead of running for hours: k_budget_per_byte per byte (+ 16 bytes, for a
// short piece), where a real pre-tokenizer pattern is charged at most 3 × k_first_limit per byte.
constexpr uint64_t k_first_limit = 256;  // steps per start position in the fast path
constexpr uint64_t k_budget_per_byte = 2048;
constexpr uint64_t k_default_limit = 10'000'000;  // PCRE2's own per-position limit, as before

// Matches of one pattern in one text, each charged to the text's budget as an upper bound of the
// steps it may have taken (the limit it ran under × the start positions it tried).
class BudgetedMatcher {
 public:
  BudgetedMatcher(const pcre2_code* code, std::string_view text, const std::string& what)
      : code_(code),
        text_(text),
        what_(what),
        budget_(k_budget_per_byte * (text.size() + 16)),
        match_(pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free),
        // A JIT stack larger than the 32 KiB default, so long runs of one class do not exhaust it.
        stack_(pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr), &pcre2_jit_stack_free),
        context_(pcre2_match_context_create(nullptr), &pcre2_match_context_free) {
    if (!match_ || !stack_ || !context_)
      throw Error(fmt::format("{}: out of memory for the regex", what_));
    pcre2_jit_stack_assign(context_.get(), nullptr, stack_.get());
  }

  // The leftmost match at or after `pos`, as one unanchored search would find it.
  std::optional<std::pair<size_t, size_t>> next(size_t pos) {
    const int rc = run(pos, 0, k_first_limit);
    if (rc >= 0) {
      charge((found().first - pos + 1) * k_first_limit);
      return found();
    }
    if (rc == PCRE2_ERROR_NOMATCH) {
      charge((text_.size() - pos + 1) * k_first_limit);
      return std::nullopt;
    }
    if (rc != PCRE2_ERROR_MATCHLIMIT) fail(pos, rc);
    // Some position needs more steps: the positions one by one, each under a growing limit.
    for (size_t at = pos; at <= text_.size(); at = next_char(at)) {
      charge(k_first_limit);  // the fast path's visit
      if (anchored(at)) return found();
    }
    return std::nullopt;
  }

 private:
  int run(size_t pos, uint32_t options, uint64_t limit) {
    pcre2_set_match_limit(context_.get(), static_cast<uint32_t>(limit));
    // The caller validated the text, so PCRE2 need not check it again at every match.
    return pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text_.data()), text_.size(), pos,
                       options | PCRE2_NO_UTF_CHECK, match_.get(), context_.get());
  }

  // A match starting at `at`, trying limits 256, 4096, … up to PCRE2's default, each charged.
  bool anchored(size_t at) {
    for (uint64_t limit = k_first_limit;; limit = std::min(limit * 16, k_default_limit)) {
      const uint64_t allowed = std::min(limit, budget_ - spent_);
      const int rc = run(at, PCRE2_ANCHORED, allowed);
      charge(allowed);
      if (rc >= 0) return true;
      if (rc == PCRE2_ERROR_NOMATCH) return false;
      if (rc != PCRE2_ERROR_MATCHLIMIT || allowed == k_default_limit) fail(at, rc);
      if (allowed < limit) over_budget();
    }
  }

  void charge(uint64_t steps) {
    spent_ = std::min(budget_, spent_ + steps);
    if (spent_ == budget_) over_budget();
  }

  [[noreturn]] void over_budget() const {
    throw Error(fmt::format(
        "{}: the regex needs more than its budget of {} matching steps for {} bytes of text "
        "(attnviz allows {} per byte: the pattern backtracks at every position)",
        what_, budget_, text_.size(), k_budget_per_byte));
  }
  [[noreturn]] void fail(size_t at, int rc) const {
    throw Error(fmt::format("{}: the regex failed at byte {}: {}", what_, at, pcre2_message(rc)));
  }

  std::pair<size_t, size_t> found() const {
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match_.get());
    return {ovector[0], ovector[1]};
  }
  size_t next_char(size_t at) const {
    if (at >= text_.size()) return at + 1;
    ++at;
    while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) ++at;
    return at;
  }

  const pcre2_code* code_;
  std::string_view text_;
  const std::string& what_;
  uint64_t budget_, spent_ = 0;
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match_;
  std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)> stack_;
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context_;
};

}  // namespace

std::vector<std::pair<size_t, size_t>> UnicodeRegex::find_all(std::string_view text) const {
  BudgetedMatcher matcher(code_.get(), text, what_);
  std::vector<std::pair<size_t, size_t>> found;
  size_t last_end = std::string_view::npos;
  for (size_t pos = 0; pos <= text.size();) {
    const auto match = matcher.next(pos);
    if (!match) break;
    const auto [begin, end] = *match;
    // As Rust's and Oniguruma's find_iter: never an empty match where the previous match ended.
    if (begin != end || begin != last_end) found.emplace_back(begin, end);
    last_end = end;
    if (end > begin) {
      pos = end;
    } else {  // an empty match: step over one character
      if (end >= text.size()) break;
      pos = end + 1;
      while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
    }
  }
  return found;
}

std::string regex_escape(std::string_view literal) {
  // A backslash before ASCII punctuation always means the character itself in PCRE2; letters,
  // digits and non-ASCII characters are literal as they are.
  std::string out;
  for (const char c : literal) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && std::ispunct(u)) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace attnviz
