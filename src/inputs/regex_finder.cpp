// PCRE2 matching for tokenizer.json patterns.
#include "regex_finder.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <memory>

#include "attnviz/core/error.hpp"

namespace attnviz {

struct RegexFinder::Code {
  pcre2_code* code = nullptr;
};

namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

size_t char_length(std::string_view text, size_t at) {
  size_t end = at + 1;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  return end - at;
}

}  // namespace

RegexFinder::RegexFinder(std::string_view pattern) : code_(new Code) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                              &error, &offset, nullptr);
  if (code_->code == nullptr) {
    delete code_;
    throw Error(fmt::format("the regex does not compile at offset {}: {}", offset, pcre2_message(error)));
  }
  (void)pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE);  // no JIT: the interpreter runs it
}

RegexFinder::~RegexFinder() {
  pcre2_code_free(code_->code);
  delete code_;
}

std::vector<std::pair<size_t, size_t>> RegexFinder::find_all(std::string_view text) const {
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
      pcre2_match_data_create_from_pattern(code_->code, nullptr), &pcre2_match_data_free);
  // A JIT stack larger than the 32 KiB default, so a long run matched by a repeated group does
  // not exhaust it (as gpt2_pretokenizer.cpp does).
  std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)> stack(
      pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr), &pcre2_jit_stack_free);
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context(
      pcre2_match_context_create(nullptr), &pcre2_match_context_free);
  if (!match || !stack || !context) throw Error("out of memory for a regex match");
  pcre2_jit_stack_assign(context.get(), nullptr, stack.get());
  std::vector<std::pair<size_t, size_t>> found;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  size_t last_end = std::string_view::npos;
  while (pos <= text.size()) {
    const int rc = pcre2_match(code_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match.get(),
                                 context.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) throw Error(fmt::format("regex match failed at byte {}: {}", pos, pcre2_message(rc)));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0], end = ovector[1];
    if (begin == end) {
      if (begin != last_end) found.emplace_back(begin, end);
      if (begin >= text.size()) break;
      pos = begin + char_length(text, begin);
    } else {
      found.emplace_back(begin, end);
      pos = end;
    }
    last_end = end;
  }
  return found;
}

std::string regex_escape(std::string_view literal) {
  // \Q…\E quotes everything but "\E" itself, which is split so it stays literal.
  std::string out = "\\Q";
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal[i] == '\\' && i + 1 < literal.size() && literal[i + 1] == 'E') {
      out += "\\E\\\\\\QE";
      ++i;
    } else {
      out += literal[i];
    }
  }
  return out + "\\E";
}

}  // namespace attnviz
