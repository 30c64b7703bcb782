// A tokenizer.json model's "vocab": token → id, and back (private to inputs/).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

class VocabMap {
 public:
  // Adds a token; an id given twice is an Error (returns false so the caller can name it).
  bool add(std::string token, int64_t id);
  std::optional<int64_t> id(std::string_view token) const;
  std::optional<std::string> token(int64_t id) const;
  int64_t size() const { return max_id_ + 1; }  // the largest id + 1
  size_t count() const { return ids_.size(); }
  size_t longest() const { return longest_; }  // bytes of the longest token

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
  std::unordered_map<int64_t, std::string> tokens_;
  int64_t max_id_ = -1;
  size_t longest_ = 0;
};

// {"token": id, …}: ids non-negative integers below 2^31, each id once; an Error naming the place.
VocabMap read_vocab_map(const nlohmann::json& vocab, const SpecPlace& place);

}  // namespace attnviz
