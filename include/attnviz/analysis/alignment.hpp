// Word alignments from cross-attention, as the alignment literature reads them (Garg et al. 2019,
// "Jointly Learning to Align and Translate with Transformer Models"; awesome-align's
// subword-to-word rule), written in the Pharaoh format ("0-0 1-2": source word - target word, from
// 0), and their alignment error rate against a gold standard (Och & Ney 2003).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

struct AlignLink {
  int source = 0;  // word index in the source sentence
  int target = 0;  // word index in the target sentence
  friend bool operator==(const AlignLink&, const AlignLink&) = default;
  friend auto operator<=>(const AlignLink&, const AlignLink&) = default;
};
using Alignment = std::vector<AlignLink>;  // sorted by (source, target), each link once

// argmax: each target token links to its most attended source token (ties: the lower index);
// threshold: to every source token it gives at least `threshold`. Tokens of no word (special
// tokens: word −1) take no part: argmax is over the source tokens that have a word.
struct AlignRule {
  enum class Kind { argmax, threshold } kind = Kind::argmax;
  float threshold = 0;
};

// `weights` [target tokens, source tokens] (a cross-attention map, each target token's row);
// `target_words` / `source_words`: each token's word (−1: none). Two words are linked when any of
// their tokens are.
Alignment align_words(const Matrix& weights, const std::vector<int>& target_words,
                      const std::vector<int>& source_words, const AlignRule& rule);

// "0-0 1-2 3-1": Pharaoh's source-target pairs, space separated ("" when empty).
std::string pharaoh(const Alignment& a);

// A gold line: "i-j" sure links and "i?j" possible ones (the convention of the hand-aligned test
// sets: Och & Ney's S ⊆ P). `possible` holds P (sure links included). A malformed pair, or an index
// outside [0, n_source) × [0, n_target), is an Error naming `where` and the pair.
struct GoldAlignment {
  Alignment sure, possible;
};
GoldAlignment parse_gold_line(std::string_view line, int n_source, int n_target,
                              const std::string& where);

// Och & Ney's AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|), from counts summed over sentence pairs (the
// corpus-level rate the alignment papers report).
struct AerCounts {
  int64_t a = 0, s = 0, a_and_s = 0, a_and_p = 0;
  void add(const Alignment& a, const GoldAlignment& gold);
  // NaN when |A| + |S| = 0 (nothing predicted and nothing to find).
  double aer() const;
};

}  // namespace attnviz
