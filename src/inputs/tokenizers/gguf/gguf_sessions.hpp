// llama.cpp's tokenizer sessions on a GGUF vocabulary: byte-level BPE by merge rank
// (llm_tokenizer_bpe_session), SentencePiece-style merging by score (llm_tokenizer_spm_session)
// and WordPiece-style longest match (llm_tokenizer_wpm_session) (private to inputs/).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"
#include "gguf_vocab.hpp"

namespace attnviz {

// One symbol of llama.cpp's sessions: a byte range of the text, linked to its neighbours.
struct GgufSymbol {
  int prev = -1;
  int next = -1;
  size_t begin = 0;
  size_t n = 0;  // 0: merged into its left neighbour
};

// One symbol per character, its length from the lead byte as llama.cpp's unicode_len_utf8 says.
std::vector<GgufSymbol> gguf_symbols(std::string_view text);
// Merges symbols[right] into symbols[left], its left neighbour.
void gguf_merge(std::vector<GgufSymbol>& symbols, int left, int right);

// `text` (valid UTF-8, a fragment between special tokens that starts at input byte `base`) split
// by the pre-tokenizer regex of vocab.pre, each word byte-level encoded and merged by rank;
// pieces appended to `out` with the token as written in the vocabulary as label.
void gguf_bpe_tokenize(const GgufVocab& vocab, std::string_view text, size_t base,
                       std::vector<TokenPiece>& out);

// `text` already escaped (spaces as "▁", the prefix space added), origin[i] the input byte of
// text byte i (text.size() + 1 entries): merged by score, highest first, leftmost among equals;
// a symbol that is no token becomes its bytes (<0xXX>, else the byte itself as a token).
void gguf_spm_tokenize(const GgufVocab& vocab, std::string_view text,
                       const std::vector<size_t>& origin, std::vector<TokenPiece>& out);

// `text` (valid UTF-8, a fragment between special tokens that starts at input byte `base`)
// normalised and split into words as llama.cpp's WPM preprocess does, each word "▁" + word matched
// longest token first; a word with a position no token matches becomes the unknown token.
void gguf_wpm_tokenize(const GgufVocab& vocab, std::string_view text, size_t base,
                       std::vector<TokenPiece>& out);

}  // namespace attnviz
