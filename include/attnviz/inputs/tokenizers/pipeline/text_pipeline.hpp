// The parts of a Hugging Face-style tokenizer (tokenizer.json, BERT's vocab.txt, …): text is
// normalized, split into pre-tokens, each pre-token becomes pieces through the model, and the
// post-processor adds the special tokens (private to inputs/).
//
//   input ──Normalizer──▶ NormalizedText ──PreTokenizer──▶ pre-tokens ──TokenModel──▶ pieces
//         ──PostProcessor──▶ pieces with [CLS] … [SEP], <s>, <|begin_of_text|>
//
// Every part is built from its tokenizer.json object ("type": …); a type or an option attnviz does
// not implement is an Error naming the file, the field and the value, never skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// Text on its way through the pipeline: its UTF-8 bytes, and for every byte the offset in the
// input text of the character it came from, so a piece names the input bytes it stands for.
// origin has text.size() + 1 entries, non-decreasing; origin[text.size()] is where the text ends
// in the input. Bytes [i, j) of text came from input bytes [origin[i], origin[j]).
struct NormalizedText {
  std::string text;
  std::vector<size_t> origin;

  // The input text itself: byte i at offset `base` + i.
  static NormalizedText of_input(std::string_view input, size_t base = 0);
  // Bytes [begin, end) of this text, keeping their origins.
  NormalizedText slice(size_t begin, size_t end) const;
  size_t input_begin() const { return origin.front(); }
  size_t input_end() const { return origin.back(); }
};

// Builds normalized text character by character: each appended string is marked as coming from
// input bytes [begin, end) (an inserted string has begin == end at the place it is inserted).
class NormalizedBuilder {
 public:
  void append(std::string_view text, size_t input_begin, size_t input_end);
  NormalizedText finish(size_t input_end);

 private:
  NormalizedText out_;
};

// Calls f(code point, byte offset, byte length) for each character of valid UTF-8 text.
void for_each_char(std::string_view text, const std::function<void(char32_t, size_t, size_t)>& f);

// Where a tokenizer's parts come from, for messages: "models/x/tokenizer.json".
struct SpecContext {
  std::string file;
};

// "normalizer", "pre_tokenizer.pretokenizers[1]", …: where a part sits in the file, for messages
// (spec_fields.hpp reads typed fields with it).
struct SpecPlace {
  const SpecContext& ctx;
  std::string where;

  SpecPlace at(std::string_view field) const;  // where + "." + field
  SpecPlace at(size_t index) const;            // where + "[index]"
  // "FILE: WHERE: message"
  [[noreturn]] void fail(std::string_view message) const;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual NormalizedText normalize(NormalizedText text) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits each pre-token further (and may rewrite it, as ByteLevel maps bytes to its alphabet);
  // the result covers the input in order.
  virtual std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const = 0;
};

// The vocabulary and the algorithm that turns one pre-token into pieces (BPE, WordPiece, Unigram).
class TokenModel {
 public:
  virtual ~TokenModel() = default;
  // One pre-token → its pieces, appended to `out`: id, the token as the vocabulary writes it in
  // `label` (the tokenizer makes it readable afterwards) and the input bytes it stands for.
  virtual void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const = 0;
  virtual std::optional<int64_t> token_to_id(std::string_view token) const = 0;
  virtual std::optional<std::string> id_to_token(int64_t id) const = 0;
  // The largest id + 1.
  virtual int64_t vocab_size() const = 0;
  // The id of the unknown token the model falls back on, when it has one.
  virtual std::optional<int64_t> unknown_id() const { return std::nullopt; }
  // "BPE, 128000 tokens, 280147 merges", for messages.
  virtual std::string description() const = 0;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Adds the special tokens of a single sequence (ids looked up in the tokenizer's vocabulary
  // when the file gives none); special tokens have begin == end (at 0 before the text, at the
  // end of the text after it). May also fix offsets (ByteLevel's trim_offsets).
  virtual std::vector<TokenPiece> process(std::vector<TokenPiece> pieces,
                                          size_t text_end) const = 0;
};

// Builders, one per JSON "type"; `spec` is the object of that part. An unknown type, an option
// with a value attnviz does not implement, or a malformed field is an Error naming the file, the
// field (`place`) and the value.
std::unique_ptr<Normalizer> make_normalizer(const nlohmann::json& spec, const SpecPlace& place);
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const nlohmann::json& spec,
                                                 const SpecPlace& place);
std::unique_ptr<TokenModel> make_token_model(const nlohmann::json& spec, const SpecPlace& place);
// A token's id in the vocabulary (model and added tokens), for special tokens named by content
// only.
using TokenLookup = std::function<std::optional<int64_t>(std::string_view)>;
// `vocab_size`: the tokenizer's ids (model and added tokens) are below it; a special token's id at
// or past it is an Error naming the part and the id.
std::unique_ptr<PostProcessor> make_post_processor(const nlohmann::json& spec,
                                                   const SpecPlace& place, int64_t vocab_size);

}  // namespace attnviz
