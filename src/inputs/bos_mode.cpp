// --bos: the tokenizer's BOS token added, left as the tokenizer decides, or taken away.
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

BosMode bos_mode_of(std::string_view flag) {
  if (flag == "always") return BosMode::always;
  if (flag == "never") return BosMode::never;
  if (flag == "auto") return BosMode::automatic;
  throw usage_error(fmt::format("--bos {}: expected auto, always or never", flag));
}

std::vector<TokenPiece> encode_with_bos(const Tokenizer& tokenizer, std::string_view text,
                                        bool add_special, BosMode mode) {
  std::vector<TokenPiece> pieces = tokenizer.encode(text, add_special);
  if (mode == BosMode::automatic) return pieces;
  const std::optional<int64_t> bos = tokenizer.bos_id();
  if (!bos) {
    if (mode == BosMode::never) return pieces;  // nothing to take away
    throw usage_error(
        fmt::format("--bos always: {} has no BOS token (no bos_token in tokenizer_config.json, "
                    "or none the vocabulary holds); give --bos auto or never",
                    tokenizer.description()));
  }
  // Only a BOS the tokenizer added counts: one typed at the start of the text is part of the text.
  const bool added = !pieces.empty() && pieces.front().added && pieces.front().id == *bos;
  if (mode == BosMode::always && !added) {
    pieces.insert(pieces.begin(), TokenPiece{*bos, tokenizer.label(*bos), 0, 0, true});
  } else if (mode == BosMode::never && added) {
    pieces.erase(pieces.begin());
  }
  return pieces;
}

}  // namespace attnviz
