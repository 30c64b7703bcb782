// A GGUF file's tokenizer metadata (tokenizer.ggml.*) read and checked as llama.cpp's
// llama_vocab::impl::load reads it, with its defaults per model type (private to inputs/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnviz {

class GgufMetadata;

// tokenizer.ggml.token_type values (llama.h's llama_token_type).
enum class GgufTokenType : int32_t {
  undefined = 0,
  normal = 1,
  unknown = 2,
  control = 3,
  user_defined = 4,
  unused = 5,
  byte = 6
};

// The pre-tokenizer regexes llama.cpp picks by tokenizer.ggml.pre (those attnviz implements);
// llama_default: "default" or no tokenizer.ggml.pre, four regexes one after the other.
enum class GgufPre { llama_default, gpt2, llama3, qwen2 };

struct PairHash {
  size_t operator()(const std::pair<std::string, std::string>& p) const {
    return std::hash<std::string>{}(p.first) ^ (std::hash<std::string>{}(p.second) << 1);
  }
};

struct GgufVocab {
  std::string file;      // for messages
  std::string model;     // tokenizer.ggml.model: "gpt2", "llama" or "bert"
  std::string pre_name;  // tokenizer.ggml.pre as written ("default" when absent)
  GgufPre pre = GgufPre::gpt2;
  std::vector<std::string> tokens;   // an empty token becomes "[EMPTY_<id>]", as in llama.cpp
  std::vector<GgufTokenType> types;  // after llama.cpp's promotions of control-looking names
  std::vector<float> scores;
  std::unordered_map<std::string, int32_t> ids;
  std::unordered_map<std::pair<std::string, std::string>, int32_t, PairHash> merge_ranks;
  size_t merge_count = 0;
  int32_t bos = -1, eos = -1, unk = -1, sep = -1, pad = -1;  // -1: none
  bool add_bos = false, add_eos = false, add_space_prefix = false, ignore_merges = false;
  bool lowercase = true, strip_accents = true;  // bert: tokenizer.ggml.normalizer.*
  size_t max_token_len = 0;       // bytes of the longest token (bert's longest-match bound)
  bool rstrip_specials = false;   // Phi-3 (general.name): special tokens take the spaces after them
  std::vector<int32_t> specials;  // control, user-defined and unknown tokens, longest text first

  int32_t find(std::string_view text) const;  // -1 when absent
  bool is_byte_level() const { return model == "gpt2"; }
  bool is_wordpiece() const { return model == "bert"; }
};

// The vocabulary of `metadata` (read from `file`). A missing or mistyped key, arrays of different
// lengths, a malformed merge, a special-token id outside the vocabulary, a repeated token, or a
// model or pre-tokenizer attnviz does not implement is an Error naming the file and the key.
GgufVocab read_gguf_vocab(const GgufMetadata& metadata, const std::string& file);

}  // namespace attnviz
