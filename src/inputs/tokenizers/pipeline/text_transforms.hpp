// Character-level rewrites of normalized text that keep its origins, as tokenizers'
// NormalizedString does with its alignments (private to inputs/): the normalizers are built from
// these.
#pragma once

#include <functional>
#include <string>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

// Each character → the string `f` appends to `out` (nothing: the character is removed); the
// string's bytes come from that character. A removed character's input bytes end up in the piece
// before it (origins cannot leave gaps), where tokenizers' offsets would skip them.
NormalizedText map_chars(const NormalizedText& text,
                         const std::function<void(char32_t, std::string& out)>& f);

// Unicode normalization forms, run by utf8proc: decomposition character by character, canonical
// reordering, then (NFC, NFKC) canonical composition, so every output character keeps the origin
// of the character it came from (a composed one: that of its first, starter, character).
enum class UnicodeForm { nfc, nfd, nfkc, nfkd };
NormalizedText unicode_normalize(const NormalizedText& text, UnicodeForm form);

// Rust's char::to_lowercase on each character, as tokenizers' NormalizedString::lowercase: the
// simple lowercase mapping (utf8proc_tolower) except U+0130 'İ' → "i\u0307", the one character
// whose full lowercase mapping (SpecialCasing.txt, unconditional) is longer. No final-sigma rule:
// 'Σ' is always 'σ', as in Rust's char-wise mapping.
NormalizedText lowercase_text(const NormalizedText& text);

}  // namespace attnviz
