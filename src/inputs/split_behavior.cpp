// SplitDelimiterBehavior, as tokenizers' NormalizedString::split applies it.
#include "split_behavior.hpp"

#include <fmt/format.h>

#include "spec_fields.hpp"

namespace attnviz {

SplitBehavior read_split_behavior(const nlohmann::json& spec, const SpecPlace& place) {
  const std::string name = spec_string(spec, "behavior", place);
  if (name == "Removed") return SplitBehavior::removed;
  if (name == "Isolated") return SplitBehavior::isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (name == "Contiguous") return SplitBehavior::contiguous;
  place.at("behavior").fail(fmt::format("'{}' is not a split behavior (Removed, Isolated, MergedWithPrevious, "
                                        "MergedWithNext, Contiguous)", name));
}

std::vector<NormalizedText> split_at(const NormalizedText& text, const std::vector<std::pair<size_t, size_t>>& matches,
                                     SplitBehavior behavior, bool invert) {
  // The whole text as alternating stretches: (range, is delimiter).
  struct Stretch {
    size_t begin, end;
    bool delimiter;
  };
  std::vector<Stretch> stretches;
  size_t at = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > at) stretches.push_back({at, begin, invert});
    stretches.push_back({begin, end, !invert});
    at = end;
  }
  if (at < text.text.size()) stretches.push_back({at, text.text.size(), invert});

  std::vector<Stretch> kept;  // the pieces, delimiter flag now meaning "drop"
  bool previous_delimiter = false;
  switch (behavior) {
    case SplitBehavior::removed:
      for (const Stretch& s : stretches) kept.push_back({s.begin, s.end, s.delimiter});
      break;
    case SplitBehavior::isolated:
      for (const Stretch& s : stretches) kept.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::merged_with_previous:
      for (const Stretch& s : stretches) {
        if (s.delimiter && !previous_delimiter && !kept.empty()) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous_delimiter = s.delimiter;
      }
      break;
    case SplitBehavior::merged_with_next:
      for (auto it = stretches.rbegin(); it != stretches.rend(); ++it) {
        if (it->delimiter && !previous_delimiter && !kept.empty()) {
          kept.back().begin = it->begin;
        } else {
          kept.push_back({it->begin, it->end, false});
        }
        previous_delimiter = it->delimiter;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    case SplitBehavior::contiguous:
      for (size_t i = 0; i < stretches.size(); ++i) {
        const Stretch& s = stretches[i];
        if (i > 0 && s.delimiter == previous_delimiter) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous_delimiter = s.delimiter;
      }
      break;
  }
  std::vector<NormalizedText> pieces;
  for (const Stretch& s : kept) {
    if (!s.delimiter && s.end > s.begin) pieces.push_back(text.slice(s.begin, s.end));
  }
  return pieces;
}

}  // namespace attnviz
