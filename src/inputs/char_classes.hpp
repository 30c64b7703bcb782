// The character classes Hugging Face tokenizers' normalizers and pre-tokenizers test, each as the
// Rust predicate it uses (private to inputs/). Categories come from utf8proc (its Unicode
// version, 15.0 in utf8proc 2.8); Rust's may be older or newer for characters assigned since.
#pragma once

namespace attnviz {

// Rust's char::is_whitespace: Unicode's White_Space property.
bool is_white_space(char32_t cp);
// BERT's _is_punctuation (tokenizers' is_bert_punc): ASCII punctuation (33–47, 58–64, 91–96,
// 123–126, which includes symbols such as $ + < = > ^ ` | ~) or a Unicode category P*.
bool is_bert_punctuation(char32_t cp);
// Rust's char::is_numeric: categories Nd, Nl, No.
bool is_numeric_char(char32_t cp);
// unicode_categories' is_other (the crate BertNormalizer uses): categories Cc, Cf and Co only —
// unlike BERT's Python _is_control, unassigned code points (Cn) are not "other" and stay.
bool is_other_char(char32_t cp);
// unicode_categories' is_mark_nonspacing: category Mn.
bool is_nonspacing_mark(char32_t cp);
// unicode-normalization's is_combining_mark: General_Category Mark (Mn, Mc, Me).
bool is_combining_mark(char32_t cp);
// BERT's _is_chinese_char, with the ranges tokenizers' BertNormalizer uses: CJK Unified
// Ideographs and their extensions A–F, the compatibility ideographs and their supplement.
bool is_cjk_ideograph(char32_t cp);

}  // namespace attnviz
