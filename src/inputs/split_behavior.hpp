// Splitting a pre-token at delimiter matches, with what happens to the delimiters as Hugging Face
// tokenizers' SplitDelimiterBehavior says (private to inputs/).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <utility>
#include <vector>

#include "text_pipeline.hpp"

namespace attnviz {

enum class SplitBehavior {
  removed,               // "a-b" on '-': "a" "b"
  isolated,              // "a" "-" "b"
  merged_with_previous,  // "a-" "b"
  merged_with_next,      // "a" "-b"
  contiguous,            // like isolated, but adjacent delimiters stay one piece: "a--b" → "a" "--" "b"
};

// The part's "behavior" field ("Removed", "Isolated", …); missing or unknown is an Error.
SplitBehavior read_split_behavior(const nlohmann::json& spec, const SpecPlace& place);

// `text` split at `matches` (sorted, non-overlapping byte ranges of text); with `invert` the
// matches are the pieces kept and what lies between them the delimiters. Empty pieces are dropped.
std::vector<NormalizedText> split_at(const NormalizedText& text, const std::vector<std::pair<size_t, size_t>>& matches,
                                     SplitBehavior behavior, bool invert = false);

}  // namespace attnviz
