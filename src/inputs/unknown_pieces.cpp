// Counting the pieces a tokenizer could only write as its unknown token.
#include <fmt/format.h>

#include <algorithm>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

std::string unknown_pieces_note(const Tokenizer& tokenizer, const std::vector<TokenPiece>& pieces) {
  const std::optional<int64_t> unk = tokenizer.unknown_id();
  if (!unk) return "";
  const auto count = std::count_if(pieces.begin(), pieces.end(),
                                   [&](const TokenPiece& p) { return p.id == *unk; });
  if (count == 0) return "";
  return fmt::format("{} of the text {} not in the vocabulary: {} {} (id {})",
                     count == 1 ? "1 piece" : fmt::format("{} pieces", count),
                     count == 1 ? "is" : "are", count == 1 ? "it became" : "they became",
                     tokenizer.label(*unk), *unk);
}

}  // namespace attnviz
