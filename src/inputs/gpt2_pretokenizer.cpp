// GPT-2's pre-tokenizer regex, run with PCRE2.
#include "gpt2_pretokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <memory>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

// The pattern of GPT-2's encoder.py (and of Hugging Face's ByteLevel pre-tokenizer), with \s
// spelled out as Unicode's White_Space, which is what \s means in the `regex` module GPT-2 ran:
// PCRE2's \s also takes U+180E (MONGOLIAN VOWEL SEPARATOR, a space before Unicode 6.3, kept
// for Perl), which would split "a \u180e'm" differently. \p{L} and \p{N} are PCRE2's Unicode
// version (14.0 in PCRE2 10.42): letters added later are not letters here.
constexpr std::string_view k_white_space =
    R"(\t-\r\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";
std::string gpt2_pattern_text() {
  return fmt::format(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{{L}}+| ?\p{{N}}+| ?[^{0}\p{{L}}\p{{N}}]+|[{0}]+(?![^{0}])|[{0}]+)",
                     k_white_space);
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

// Compiled once (thread-safe static), JIT-compiled when the platform has a JIT; pcre2_match
// uses the JIT code by itself when it exists. Matching a compiled pattern is thread-safe.
const pcre2_code* gpt2_pattern() {
  static const std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)> code = [] {
    const std::string pattern = gpt2_pattern_text();
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                  PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (c == nullptr) {
      throw Error(fmt::format("GPT-2 pre-tokenizer regex does not compile at {}: {}", offset,
                              pcre2_message(error)));
    }
    (void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // no JIT: the interpreter runs it
    return std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)>(c, &pcre2_code_free);
  }();
  return code.get();
}

}  // namespace

std::vector<std::pair<size_t, size_t>> gpt2_pretokenize(std::string_view text, std::string_view what) {
  if (const auto bad = find_invalid_utf8(text)) {
    throw Error(fmt::format("{}: invalid UTF-8 at byte {}", what, *bad));
  }
  const pcre2_code* code = gpt2_pattern();
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  // A JIT stack larger than the 32 KiB default, so long runs of one class do not exhaust it.
  std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)> stack(
      pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr), &pcre2_jit_stack_free);
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context(
      pcre2_match_context_create(nullptr), &pcre2_match_context_free);
  if (!match || !stack || !context) throw Error(fmt::format("{}: out of memory for the pre-tokenizer", what));
  pcre2_jit_stack_assign(context.get(), nullptr, stack.get());

  std::vector<std::pair<size_t, size_t>> pieces;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  for (size_t pos = 0; pos < text.size();) {
    // The text was validated above, so PCRE2 need not check it again at every match.
    const int rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match.get(),
                               context.get());
    if (rc < 0) {
      throw Error(fmt::format("{}: the GPT-2 pre-tokenizer failed at byte {}: {}", what, pos,
                              rc == PCRE2_ERROR_NOMATCH ? "no pre-token matches" : pcre2_message(rc)));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    // Every character matches one alternative (\s, \p{L}, \p{N} or none of them), so the
    // matches are adjacent and never empty; anything else would drop text silently.
    if (ovector[0] != pos || ovector[1] <= pos) {
      throw Error(fmt::format("{}: the GPT-2 pre-tokenizer skipped bytes {}..{}", what, pos, ovector[0]));
    }
    pieces.emplace_back(pos, ovector[1]);
    pos = ovector[1];
  }
  return pieces;
}

}  // namespace attnviz
