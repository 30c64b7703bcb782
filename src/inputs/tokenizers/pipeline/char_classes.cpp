// Character classes of tokenizers' normalizers and pre-tokenizers, by utf8proc's categories and,
// for the crates with frozen tables, ICU's Unicode age of each character.
#include "attnviz/inputs/tokenizers/pipeline/char_classes.hpp"

#include <unicode/uchar.h>
#include <utf8proc.h>

namespace attnviz {

namespace {

utf8proc_category_t category(char32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

// Whether the character was assigned by Unicode `major`.0 (its Age property, from ICU).
bool assigned_by(char32_t cp, int major) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(cp), age);
  return age[0] != 0 && age[0] <= major;  // unassigned: age 0.0
}

// The Unicode versions of the tables tokenizers' crates carry: unicode_categories 0.1.1
// (is_punctuation, is_other, is_mark_nonspacing) has Unicode 8.0's,
// unicode-normalization-alignments (is_combining_mark) 9.0's. Characters assigned since are none of
// those classes there.
constexpr int k_categories_unicode = 8;
constexpr int k_normalization_unicode = 9;

}  // namespace

bool is_white_space(char32_t cp) {
  // PropList.txt's White_Space, which Rust's char::is_whitespace implements.
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

bool is_bert_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126)) {
    return true;
  }
  const auto c = category(cp);
  return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO &&
         assigned_by(cp, k_categories_unicode);
}

bool is_numeric_char(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

bool is_other_char(char32_t cp) {
  const auto c = category(cp);
  return (c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CO) &&
         assigned_by(cp, k_categories_unicode);
}

bool is_nonspacing_mark(char32_t cp) {
  return category(cp) == UTF8PROC_CATEGORY_MN && assigned_by(cp, k_categories_unicode);
}

bool is_combining_mark(char32_t cp) {
  const auto c = category(cp);
  return (c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME) &&
         assigned_by(cp, k_normalization_unicode);
}

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

}  // namespace attnviz
