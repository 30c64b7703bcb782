// Byte-pair encoding over raw bytes: the merge ranks of merges.txt applied to one pre-token, as
// GPT-2's encoder.py bpe() does (private to inputs/).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz {

class BpeMerges {
 public:
  // Adds the merge (first, second) with the next rank (its line order); a pair listed again takes
  // the later rank, as dict(zip(merges, range(len(merges)))) in encoder.py does.
  void add(std::string_view first, std::string_view second);
  size_t size() const { return count_; }

  // The byte lengths of the pieces `word` becomes: start from single bytes, then repeatedly take
  // the adjacent pair of lowest rank and merge all its occurrences left to right (an occurrence
  // overlapping one just merged is skipped, as in "aaa" → "aa" "a"); stop when no pair is ranked.
  std::vector<size_t> merge(std::string_view word) const;

 private:
  // -1 when the pair is not a merge.
  int rank(std::string_view first, std::string_view second) const;

  std::unordered_map<std::string, int> ranks_;  // first + second + length of first → rank
  size_t count_ = 0;
};

}  // namespace attnviz
