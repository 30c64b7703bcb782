// NormalizedString::split of tokenizers: matches folded by behaviour, then sliced.
#include "split_behavior.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

SplitBehavior split_behavior_of(const nlohmann::json& value, const SpecPlace& place) {
  if (value.is_string()) {
    const auto& name = value.get_ref<const std::string&>();
    if (name == "Removed") return SplitBehavior::removed;
    if (name == "Isolated") return SplitBehavior::isolated;
    if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
    if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
    if (name == "Contiguous") return SplitBehavior::contiguous;
  }
  place.fail(fmt::format(
      "expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous, got {}",
      value.dump()));
}

std::vector<MatchSpan> char_matches(std::string_view text,
                                    const std::function<bool(char32_t)>& accepts) {
  std::vector<MatchSpan> spans;
  size_t plain = 0;
  for_each_char(text, [&](char32_t cp, size_t at, size_t length) {
    if (!accepts(cp)) return;
    if (plain < at) spans.push_back({plain, at, false});
    spans.push_back({at, at + length, true});
    plain = at + length;
  });
  if (plain < text.size() || text.empty()) spans.push_back({plain, text.size(), false});
  return spans;
}

std::vector<MatchSpan> regex_spans(size_t text_size,
                                   const std::vector<std::pair<size_t, size_t>>& matches,
                                   bool invert) {
  std::vector<MatchSpan> spans;
  size_t plain = 0;
  for (const auto& [begin, end] : matches) {
    if (plain != begin) spans.push_back({plain, begin, invert});
    spans.push_back({begin, end, !invert});
    plain = end;
  }
  if (plain != text_size || text_size == 0) spans.push_back({plain, text_size, invert});
  return spans;
}

std::vector<NormalizedText> split_by_behavior(const NormalizedText& text,
                                              const std::vector<MatchSpan>& spans,
                                              SplitBehavior behavior) {
  // (begin, end, removed) per piece, folded as NormalizedString::split does.
  std::vector<MatchSpan> pieces;  // here `match` means "remove"
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::removed:
      pieces = spans;
      break;
    case SplitBehavior::isolated:
      for (const MatchSpan& s : spans) pieces.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::contiguous:
    case SplitBehavior::merged_with_previous:
      // Contiguous joins a span to the one before when both match or both do not;
      // MergedWithPrevious joins a match to the non-match before it.
      for (const MatchSpan& s : spans) {
        const bool join = behavior == SplitBehavior::contiguous ? s.match == previous_match
                                                                : s.match && !previous_match;
        if (join && !pieces.empty()) {
          pieces.back().end = s.end;
        } else {
          pieces.push_back({s.begin, s.end, false});
        }
        previous_match = s.match;
      }
      break;
    case SplitBehavior::merged_with_next:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->match && !previous_match && !pieces.empty()) {
          pieces.back().begin = it->begin;
        } else {
          pieces.push_back({it->begin, it->end, false});
        }
        previous_match = it->match;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
  }
  std::vector<NormalizedText> out;
  for (const MatchSpan& p : pieces) {
    if (!p.match && p.end > p.begin) out.push_back(text.slice(p.begin, p.end));
  }
  return out;
}

std::vector<NormalizedText> split_each(
    std::vector<NormalizedText> pieces,
    const std::function<std::vector<MatchSpan>(std::string_view)>& find, SplitBehavior behavior) {
  std::vector<NormalizedText> out;
  for (const NormalizedText& piece : pieces) {
    for (NormalizedText& part : split_by_behavior(piece, find(piece.text), behavior))
      out.push_back(std::move(part));
  }
  return out;
}

SplitBehavior read_split_behavior(const nlohmann::json& spec, const SpecPlace& place) {
  return split_behavior_of(spec_required(spec, "behavior", place), place.at("behavior"));
}

std::vector<NormalizedText> split_at(const NormalizedText& text,
                                     const std::vector<std::pair<size_t, size_t>>& matches,
                                     SplitBehavior behavior, bool invert) {
  return split_by_behavior(text, regex_spans(text.text.size(), matches, invert), behavior);
}

}  // namespace attnviz
