// llama.cpp's llm_tokenizer_wpm_session (GGUF "bert"): its own BERT-like normalisation and word
// split, then each word, "▁" in front, matched greedily longest-first against the vocabulary.
#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/char_classes.hpp"
#include "gguf_sessions.hpp"

namespace attnviz {
namespace {

// A word after preprocessing: its normalised UTF-8 and, per byte of it (and one past), the input
// byte.
struct WpmWord {
  std::string text;
  std::vector<size_t> origin;
};

size_t utf8_length(char32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

utf8proc_category_t category(char32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

// unicode_cpts_normalize_nfd: llama.cpp's table keeps only the first code point of the NFD.
char32_t nfd_first(char32_t cp) {
  utf8proc_int32_t out[8];
  utf8proc_int32_t boundclass = 0;
  const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), out, 8,
                                         UTF8PROC_DECOMPOSE, &boundclass);
  return n > 0 ? static_cast<char32_t>(out[0]) : cp;
}

bool is_control(utf8proc_category_t c) {  // \p{C} but unassigned (Cn), as llama.cpp's flags
  return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CO ||
         c == UTF8PROC_CATEGORY_CS;
}
bool is_mark(utf8proc_category_t c) {
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}
bool is_punctuation(utf8proc_category_t c) {
  return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}
bool is_symbol(utf8proc_category_t c) {
  return c >= UTF8PROC_CATEGORY_SM && c <= UTF8PROC_CATEGORY_SO;
}

// llm_tokenizer_wpm_session::is_chinese_char, with its ranges (0x2B920, not 0x2B820, as Hugging
// Face's).
bool is_wpm_chinese(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

void finish(std::vector<WpmWord>& words, size_t at) {
  if (words.back().text.empty()) return;
  words.back().origin.push_back(at);
  words.emplace_back();
}

void append(WpmWord& w, char32_t cp, size_t begin) {
  const size_t before = w.text.size();
  append_utf8(w.text, cp);
  w.origin.insert(w.origin.end(), w.text.size() - before, begin);
}

// llm_tokenizer_wpm_session::preprocess: whitespace ends a word; NUL, U+FFFD, controls and (when
// stripping accents, after NFD) marks are dropped; punctuation, ASCII symbols and CJK ideographs
// are words of their own.
std::vector<WpmWord> preprocess(const GgufVocab& v, std::string_view text, size_t base) {
  std::vector<WpmWord> words(1);
  size_t at = 0;
  for (const char32_t raw : decode_utf8(text)) {
    const size_t begin = base + at, end = begin + utf8_length(raw);
    at = end - base;
    const char32_t cp = v.strip_accents ? nfd_first(raw) : raw;
    const utf8proc_category_t c = category(cp);
    if (is_white_space(cp)) {
      finish(words, begin);
      continue;
    }
    if (cp == 0 || cp == 0xFFFD || is_control(c) || (v.strip_accents && is_mark(c))) continue;
    const char32_t out =
        v.lowercase ? static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)))
                    : cp;
    if (is_punctuation(c) || (cp < 0x7F && is_symbol(c)) || is_wpm_chinese(cp)) {
      finish(words, begin);
      append(words.back(), out, begin);
      finish(words, end);
    } else {
      append(words.back(), out, begin);
    }
  }
  if (words.back().text.empty()) {
    words.pop_back();
  } else {
    words.back().origin.push_back(base + text.size());
  }
  return words;
}

// One word: the longest token at each position; a position no token starts at makes the word UNK.
void tokenize_word(const GgufVocab& v, const WpmWord& word, std::vector<TokenPiece>& out) {
  static constexpr std::string_view k_phantom = "\xe2\x96\x81";
  const std::string text = std::string(k_phantom) + word.text;
  const auto origin = [&](size_t i) {
    return i < k_phantom.size() ? word.origin.front() : word.origin[i - k_phantom.size()];
  };
  const size_t first = out.size();
  for (size_t i = 0; i < text.size();) {
    size_t j = std::min(text.size(), i + v.max_token_len + 1);
    int32_t id = -1;
    for (; j > i && id < 0; --j) id = v.find(std::string_view(text).substr(i, j - i));
    if (id < 0) {
      out.resize(first);
      break;
    }
    ++j;  // the loop stepped past the match
    out.push_back({id, v.tokens[static_cast<size_t>(id)], origin(i), origin(j), false});
    i = j;
  }
  if (out.size() > first) return;
  if (v.unk < 0) {
    throw Error(fmt::format(
        "{}: the vocabulary has no unknown token (tokenizer.ggml.unknown_token_id), which the "
        "word '{}' needs",
        v.file, word.text));
  }
  out.push_back({v.unk, v.tokens[static_cast<size_t>(v.unk)], word.origin.front(),
                 word.origin.back(), false});
}

}  // namespace

void gguf_wpm_tokenize(const GgufVocab& vocab, std::string_view text, size_t base,
                       std::vector<TokenPiece>& out) {
  for (const WpmWord& word : preprocess(vocab, text, base)) tokenize_word(vocab, word, out);
}

}  // namespace attnviz
