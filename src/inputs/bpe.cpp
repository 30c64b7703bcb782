// The BPE merge loop, with a heap so a long pre-token costs n log n, not n² per merge.
#include "bpe.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>

namespace attnviz {

namespace {

// The pair as one key: "ab" + "c" and "a" + "bc" differ in the length of the first part.
std::string pair_key(std::string_view first, std::string_view second) {
  std::string key;
  key.reserve(first.size() + second.size() + 4);
  key.append(first).append(second);
  const auto n = static_cast<uint32_t>(first.size());
  for (int shift = 0; shift < 32; shift += 8) key.push_back(static_cast<char>((n >> shift) & 0xFF));
  return key;
}

}  // namespace

void BpeMerges::add(std::string_view first, std::string_view second) {
  ranks_[pair_key(first, second)] = static_cast<int>(count_++);
}

int BpeMerges::rank(std::string_view first, std::string_view second) const {
  const auto it = ranks_.find(pair_key(first, second));
  return it == ranks_.end() ? -1 : it->second;
}

std::vector<size_t> BpeMerges::merge(std::string_view word) const {
  const size_t n = word.size();
  // Symbol i covers word[begin[i], begin[next[i]]); merged-away symbols are dead.
  std::vector<size_t> begin(n), end(n);
  std::vector<ptrdiff_t> prev(n), next(n);
  std::vector<char> alive(n, 1);
  for (size_t i = 0; i < n; ++i) {
    begin[i] = i;
    end[i] = i + 1;
    prev[i] = static_cast<ptrdiff_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<ptrdiff_t>(i + 1) : -1;
  }
  auto text = [&](size_t i) { return word.substr(begin[i], end[i] - begin[i]); };
  auto pair_rank = [&](size_t left) {
    return next[left] < 0 ? -1 : rank(text(left), text(static_cast<size_t>(next[left])));
  };

  // (rank, left symbol): lowest rank first, then leftmost. An entry is stale when its symbols
  // changed since; the rank is looked up again (one rank is one pair) to tell.
  using Entry = std::pair<int, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (size_t i = 0; i + 1 < n; ++i) {
    if (const int r = pair_rank(i); r >= 0) heap.emplace(r, i);
  }
  std::vector<size_t> touched;
  while (!heap.empty()) {
    // One round merges every occurrence of the lowest-ranked pair, left to right; pairs the
    // merges form enter the heap only after the round, as encoder.py's loop builds the new word
    // before it looks for the next pair.
    const int r = heap.top().first;
    touched.clear();
    while (!heap.empty() && heap.top().first == r) {
      const size_t left = heap.top().second;
      heap.pop();
      if (!alive[left] || pair_rank(left) != r) continue;
      const auto right = static_cast<size_t>(next[left]);
      end[left] = end[right];
      alive[right] = 0;
      next[left] = next[right];
      if (next[right] >= 0) prev[static_cast<size_t>(next[right])] = static_cast<ptrdiff_t>(left);
      touched.push_back(left);
      if (prev[left] >= 0) touched.push_back(static_cast<size_t>(prev[left]));
    }
    for (const size_t i : touched) {
      if (const int nr = alive[i] ? pair_rank(i) : -1; nr >= 0) heap.emplace(nr, i);
    }
  }
  std::vector<size_t> lengths;
  for (ptrdiff_t i = n ? 0 : -1; i >= 0; i = next[static_cast<size_t>(i)]) {
    lengths.push_back(end[static_cast<size_t>(i)] - begin[static_cast<size_t>(i)]);
  }
  return lengths;
}

}  // namespace attnviz
