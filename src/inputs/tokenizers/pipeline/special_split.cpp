// Leftmost-longest matching of special tokens in a text.
#include "attnviz/inputs/tokenizers/pipeline/special_split.hpp"

#include <array>

namespace attnviz {

std::vector<SpecialSegment> split_specials(std::string_view text,
                                           const std::vector<SpecialToken>& tokens) {
  std::vector<SpecialSegment> out;
  std::array<bool, 256> starts{};  // the first bytes of the tokens, to skip most bytes at once
  for (const SpecialToken& token : tokens) {
    if (!token.content.empty()) starts[static_cast<unsigned char>(token.content[0])] = true;
  }
  size_t plain = 0;
  for (size_t at = 0; at < text.size();) {
    if (!starts[static_cast<unsigned char>(text[at])]) {
      ++at;
      continue;
    }
    const SpecialToken* best = nullptr;
    for (const SpecialToken& token : tokens) {
      if (token.content.empty() || text.compare(at, token.content.size(), token.content) != 0)
        continue;
      if (best == nullptr || token.content.size() > best->content.size()) best = &token;
    }
    if (best == nullptr) {
      ++at;
      continue;
    }
    if (plain < at) out.push_back({plain, at, nullptr});
    out.push_back({at, at + best->content.size(), best});
    at += best->content.size();
    plain = at;
  }
  if (plain < text.size() || text.empty()) out.push_back({plain, text.size(), nullptr});
  return out;
}

}  // namespace attnviz
