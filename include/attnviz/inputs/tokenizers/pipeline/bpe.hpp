// Byte-pair encoding over interned symbol ids (private to inputs/): a word is a list of symbols
// (an id and the bytes it covers), merged by rank as GPT-2's encoder.py bpe() and Hugging Face
// tokenizers' Word::merge_all do, in n log n per word; and a bounded cache of merged words.
//
// The ids are the caller's: GPT-2's vocab.json path interns byte strings (its initial symbols are
// single bytes), tokenizer.json's BPE uses its vocabulary ids (its initial symbols are characters).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz {

// One symbol of a word: its id and the number of bytes of the word it covers.
struct BpeSymbol {
  int32_t id = 0;
  uint32_t length = 0;
  bool operator==(const BpeSymbol&) const = default;
};

// When a pair a merge forms may merge. The two agree whenever every merged token's pairs rank
// after the merge that made it, as in every merges list BPE training writes.
enum class MergeOrder {
  // encoder.py: merge every occurrence of the lowest-ranked pair, left to right, then look again
  // (pairs formed in a round wait for the next one).
  by_round,
  // tokenizers: one queue of (rank, position); a pair formed by a merge competes at once.
  by_rank,
};

class BpeMerges {
 public:
  // The merge (first, second) → merged, with the next rank (its order of addition); a pair added
  // again takes the later rank, as a dict or hash map built from the list does.
  void add(int32_t first, int32_t second, int32_t merged);
  // Merges added (a repeated pair counts each time, as lines of the file).
  size_t size() const { return count_; }

  // Merges `word` in place: lowest rank first, leftmost first among equal ranks; an occurrence
  // overlapping one just merged is skipped ("aaa" → "aa" "a"); stops when no adjacent pair is a
  // merge.
  void merge_all(std::vector<BpeSymbol>& word, MergeOrder order) const;

 private:
  struct Merge {
    uint32_t rank;
    int32_t merged;
  };
  static uint64_t key(int32_t first, int32_t second) {
    return (uint64_t{static_cast<uint32_t>(first)} << 32) | static_cast<uint32_t>(second);
  }
  const Merge* find(int32_t first, int32_t second) const;

  std::unordered_map<uint64_t, Merge> merges_;
  size_t count_ = 0;
};

// Strings ↔ dense ids, for symbols that are not a vocabulary's ids (GPT-2's byte strings).
class SymbolTable {
 public:
  int32_t intern(std::string_view text);
  std::optional<int32_t> find(std::string_view text) const;
  const std::string& text(int32_t id) const { return texts_[static_cast<size_t>(id)]; }
  size_t size() const { return texts_.size(); }

 private:
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> texts_;
};

// Merged words by their text, as tokenizers caches them: at most 10,000 words shorter than 256
// bytes; once full it keeps what it has (no eviction, so a hit costs one lookup). Thread-safe.
class BpeCache {
 public:
  std::optional<std::vector<BpeSymbol>> find(std::string_view word) const;
  void insert(std::string_view word, const std::vector<BpeSymbol>& symbols) const;

  static constexpr size_t k_capacity = 10000;
  static constexpr size_t k_max_word_bytes = 256;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, std::vector<BpeSymbol>, Hash, std::equal_to<>> words_;
};

}  // namespace attnviz
