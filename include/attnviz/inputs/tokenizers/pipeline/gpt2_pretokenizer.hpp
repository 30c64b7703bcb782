// GPT-2's pre-tokenizer: the regex that splits text into words, numbers, punctuation runs and
// whitespace before byte-level BPE runs on each piece (private to inputs/).
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz {

// Byte ranges [begin, end) of the pre-tokens of text, in order and covering it, as GPT-2's
// encoder.py finds them: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (\s as Unicode White_Space, as in the `regex` module; PCRE2 with UTF and Unicode properties,
// JIT-compiled once: unicode_regex.hpp). Invalid UTF-8 is an Error naming `what` and the byte
// offset.
std::vector<std::pair<size_t, size_t>> gpt2_pretokenize(std::string_view text,
                                                        std::string_view what);

class UnicodeRegex;
// The compiled pattern (tokenizer.json's ByteLevel pre-tokenizer runs it on normalized text).
const UnicodeRegex& gpt2_regex();

}  // namespace attnviz
