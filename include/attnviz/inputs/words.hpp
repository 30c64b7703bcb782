// Words of a text and the word each of its tokens belongs to, for word alignments: words are the
// text's runs of non-whitespace characters (Python's str.split(), which the Pharaoh files of the
// alignment test sets index).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The text's words, in order.
std::vector<std::string> split_words(std::string_view text);

// For each piece, the index of the word holding the first non-whitespace byte at or after the
// piece's begin (a SentencePiece "▁" of its own belongs to the word after it); −1 for a piece the
// tokenizer added (</s>, <s>, [CLS]) and for one with no word after it.
std::vector<int> word_of_pieces(std::string_view text, const std::vector<TokenPiece>& pieces);

}  // namespace attnviz
