// The BPE merge loop: symbols in a linked list over a vector, candidate merges in a min-heap of
// (rank, position), as tokenizers' Word::merge_all; stale heap entries are recognised when popped.
#include "attnviz/inputs/tokenizers/pipeline/bpe.hpp"

#include <functional>
#include <queue>

namespace attnviz {

void BpeMerges::add(int32_t first, int32_t second, int32_t merged) {
  merges_[key(first, second)] = {static_cast<uint32_t>(count_++), merged};
}

const BpeMerges::Merge* BpeMerges::find(int32_t first, int32_t second) const {
  const auto it = merges_.find(key(first, second));
  return it == merges_.end() ? nullptr : &it->second;
}

namespace {

// A symbol of the word being merged; a merged-away one has length 0.
struct Node {
  BpeSymbol symbol;
  int32_t prev;
  int32_t next;  // -1: none
};

// A candidate merge of the symbol at `pos` with its next one. Ordered by rank, then position, so
// the heap's top is the lowest rank's leftmost occurrence.
struct Candidate {
  uint32_t rank;
  int32_t pos;
  int32_t merged;
  int32_t first, second;  // the pair's ids when queued: the entry is stale once they changed
  bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

void BpeMerges::merge_all(std::vector<BpeSymbol>& word, MergeOrder order) const {
  const auto n = static_cast<int32_t>(word.size());
  if (n < 2) return;
  std::vector<Node> nodes(word.size());
  for (int32_t i = 0; i < n; ++i)
    nodes[static_cast<size_t>(i)] = {word[static_cast<size_t>(i)], i - 1, i + 1 < n ? i + 1 : -1};

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto candidate = [&](int32_t pos, std::vector<Candidate>* later) {
    const Node& left = nodes[static_cast<size_t>(pos)];
    if (left.next < 0) return;
    const int32_t second = nodes[static_cast<size_t>(left.next)].symbol.id;
    if (const Merge* m = find(left.symbol.id, second)) {
      const Candidate c{m->rank, pos, m->merged, left.symbol.id, second};
      if (later) {
        later->push_back(c);
      } else {
        heap.push(c);
      }
    }
  };
  for (int32_t i = 0; i + 1 < n; ++i) candidate(i, nullptr);

  // by_round: pairs formed while merging rank r wait here until every occurrence of r is done.
  std::vector<Candidate> waiting;
  std::vector<Candidate>* const defer = order == MergeOrder::by_round ? &waiting : nullptr;
  while (!heap.empty()) {
    const Candidate top = heap.top();
    heap.pop();
    Node& left = nodes[static_cast<size_t>(top.pos)];
    // Stale: the symbol was merged away, has no right neighbour now, or the pair changed.
    if (left.symbol.length != 0 && left.next >= 0 && left.symbol.id == top.first) {
      Node& right = nodes[static_cast<size_t>(left.next)];
      if (right.symbol.id == top.second) {
        left.symbol = {top.merged, left.symbol.length + right.symbol.length};
        right.symbol.length = 0;
        left.next = right.next;
        if (right.next >= 0) nodes[static_cast<size_t>(right.next)].prev = top.pos;
        if (left.prev >= 0) candidate(left.prev, defer);
        candidate(top.pos, defer);
      }
    }
    if (defer && !waiting.empty() && (heap.empty() || heap.top().rank != top.rank)) {
      for (const Candidate& c : waiting) heap.push(c);
      waiting.clear();
    }
  }
  word.clear();
  for (int32_t i = 0; i >= 0; i = nodes[static_cast<size_t>(i)].next)
    word.push_back(nodes[static_cast<size_t>(i)].symbol);
}

int32_t SymbolTable::intern(std::string_view text) {
  const auto [it, fresh] = ids_.try_emplace(std::string(text), static_cast<int32_t>(texts_.size()));
  if (fresh) texts_.emplace_back(text);
  return it->second;
}

std::optional<int32_t> SymbolTable::find(std::string_view text) const {
  const auto it = ids_.find(std::string(text));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::vector<BpeSymbol>> BpeCache::find(std::string_view word) const {
  if (word.size() >= k_max_word_bytes) return std::nullopt;
  const std::lock_guard lock(mutex_);
  const auto it = words_.find(word);
  if (it == words_.end()) return std::nullopt;
  return it->second;
}

void BpeCache::insert(std::string_view word, const std::vector<BpeSymbol>& symbols) const {
  if (word.size() >= k_max_word_bytes) return;
  const std::lock_guard lock(mutex_);
  if (words_.size() < k_capacity) words_.emplace(std::string(word), symbols);
}

}  // namespace attnviz
