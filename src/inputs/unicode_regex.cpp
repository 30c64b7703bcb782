// PCRE2 for the pre-tokenizer patterns.
#include "unicode_regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <cctype>

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

void free_code(pcre2_real_code_8* code) { pcre2_code_free(code); }

}  // namespace

std::string with_white_space_classes(std::string_view pattern, std::string_view what) {
  const auto refuse = [&](std::string_view why) {
    throw Error(fmt::format("{}: the regex '{}': {} (attnviz runs tokenizers' Oniguruma patterns on PCRE2)", what,
                            printable_text(pattern), why));
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
        refuse(fmt::format("\\{} is a hexadecimal digit in Oniguruma and horizontal space in PCRE2", next));
      } else if (next == 'b' || next == 'B') {
        refuse(fmt::format("\\{} (a word boundary) follows each engine's own word characters", next));
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

UnicodeRegex::UnicodeRegex(std::string_view pattern, std::string what) : code_(nullptr, &free_code), what_(std::move(what)) {
  const std::string text = with_white_space_classes(pattern, what_);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), PCRE2_UTF | PCRE2_UCP,
                                   &error, &offset, nullptr);
  if (code == nullptr) {
    throw Error(fmt::format("{}: the regex '{}' does not compile (at {}): {}", what_, printable_text(pattern), offset,
                            pcre2_message(error)));
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // no JIT: the interpreter runs it
  code_.reset(code);
}

UnicodeRegex::~UnicodeRegex() = default;
UnicodeRegex::UnicodeRegex(UnicodeRegex&&) noexcept = default;
UnicodeRegex& UnicodeRegex::operator=(UnicodeRegex&&) noexcept = default;

std::vector<std::pair<size_t, size_t>> UnicodeRegex::find_all(std::string_view text) const {
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
      pcre2_match_data_create_from_pattern(code_.get(), nullptr), &pcre2_match_data_free);
  // A JIT stack larger than the 32 KiB default, so long runs of one class do not exhaust it.
  std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)> stack(
      pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr), &pcre2_jit_stack_free);
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context(
      pcre2_match_context_create(nullptr), &pcre2_match_context_free);
  if (!match || !stack || !context) throw Error(fmt::format("{}: out of memory for the regex", what_));
  pcre2_jit_stack_assign(context.get(), nullptr, stack.get());

  std::vector<std::pair<size_t, size_t>> found;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t last_end = std::string_view::npos;
  for (size_t pos = 0; pos <= text.size();) {
    // The caller validated the text, so PCRE2 need not check it again at every match.
    const int rc = pcre2_match(code_.get(), subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match.get(), context.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) throw Error(fmt::format("{}: the regex failed at byte {}: {}", what_, pos, pcre2_message(rc)));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0], end = ovector[1];
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
