// The character classes Hugging Face tokenizers' normalizers and pre-tokenizers test, each as the
// Rust predicate it uses (private to inputs/). Categories come from utf8proc (Unicode 15.0 in
// utf8proc 2.8); where tokenizers' crate carries older tables (unicode_categories: Unicode 8.0,
// unicode-normalization-alignments: 9.0), a character assigned since (ICU's Age) is not in the
// class, as there (checked against tokenizers' Rust core: U+2E42 is punctuation there, U+2E43 not).
#pragma once

namespace attnviz {

// Rust's char::is_whitespace: Unicode's White_Space property.
bool is_white_space(char32_t cp);
// BERT's _is_punctuation (tokenizers' is_bert_punc): ASCII punctuation (33–47, 58–64, 91–96,
// 123–126, which includes symbols such as $ + < = > ^ ` | ~) or a Unicode 8.0 category P*.
bool is_bert_punctuation(char32_t cp);
// Rust's char::is_numeric: categories Nd, Nl, No.
bool is_numeric_char(char32_t cp);
// unicode_categories' is_other (the crate BertNormalizer uses): Unicode 8.0's Cc, Cf and Co only —
// unlike BERT's Python _is_control, unassigned code points (Cn) are not "other" and stay.
bool is_other_char(char32_t cp);
// unicode_categories' is_mark_nonspacing: Unicode 8.0's Mn.
bool is_nonspacing_mark(char32_t cp);
// unicode-normalization-alignments' is_combining_mark: Unicode 9.0's Mark (Mn, Mc, Me).
bool is_combining_mark(char32_t cp);
// BERT's _is_chinese_char, with the ranges tokenizers' BertNormalizer uses: CJK Unified
// Ideographs and their extensions A–F, the compatibility ideographs and their supplement.
bool is_cjk_ideograph(char32_t cp);

}  // namespace attnviz
