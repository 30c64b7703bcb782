// Splitting normalized text at matches of a pattern, and what becomes of the matches: tokenizers'
// NormalizedString::split with its SplitDelimiterBehavior (private to inputs/). Used by the
// pre-tokenizers that split on characters (Bert, Whitespace, Punctuation, Digits) and by Split.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <utility>
#include <vector>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

// Splitting "the-final--countdown" on '-':
//   removed              the | final | countdown
//   isolated             the | - | final | - | - | countdown
//   merged_with_previous the- | final- | - | countdown
//   merged_with_next     the | -final | - | -countdown
//   contiguous           the | - | final | -- | countdown
enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// A behaviour as tokenizer.json writes it ("Removed", "Isolated", "MergedWithPrevious",
// "MergedWithNext", "Contiguous"); anything else is an Error naming `place`.
SplitBehavior split_behavior_of(const nlohmann::json& value, const SpecPlace& place);

// A stretch of the text, [begin, end) in bytes, and whether the pattern matched it.
struct MatchSpan {
  size_t begin = 0;
  size_t end = 0;
  bool match = false;
};

// Pattern::find_matches of a character predicate: every character it accepts is a match of its
// own (so "--" is two matches), the stretches between them non-matches.
std::vector<MatchSpan> char_matches(std::string_view text,
                                    const std::function<bool(char32_t)>& accepts);
// Pattern::find_matches of a regex: its matches ([begin, end), in order, not overlapping) and
// the stretches between them; `invert` swaps match and non-match (tokenizers' Invert).
std::vector<MatchSpan> regex_spans(size_t text_size,
                                   const std::vector<std::pair<size_t, size_t>>& matches,
                                   bool invert);

// The pieces of `text` the spans and the behaviour make; empty pieces are dropped, as
// PreTokenizedString::split drops them.
std::vector<NormalizedText> split_by_behavior(const NormalizedText& text,
                                              const std::vector<MatchSpan>& spans,
                                              SplitBehavior behavior);

// Applies split_by_behavior to each piece with the spans `find` gives for its text.
std::vector<NormalizedText> split_each(
    std::vector<NormalizedText> pieces,
    const std::function<std::vector<MatchSpan>(std::string_view)>& find, SplitBehavior behavior);

// A part's "behavior" field, required.
SplitBehavior read_split_behavior(const nlohmann::json& spec, const SpecPlace& place);

// `text` split at `matches` (sorted, non-overlapping byte ranges of text), `invert` as in
// regex_spans.
std::vector<NormalizedText> split_at(const NormalizedText& text,
                                     const std::vector<std::pair<size_t, size_t>>& matches,
                                     SplitBehavior behavior, bool invert = false);

}  // namespace attnviz
