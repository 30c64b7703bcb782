// Tokenizers that models ship with: text → the ids the model was trained with, with readable
// labels.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// Texts attnviz tokenizes are at most this long: a longer one makes more tokens than any map shows
// (--text, --text-file, a --batch line).
inline constexpr size_t k_max_text_bytes = 8u << 20;

// One piece of tokenized text: what the model sees (id), what the axes show (label) and where in
// the input it came from.
struct TokenPiece {
  int64_t id = 0;
  std::string label;  // readable: "␣cat" (a leading space shown as U+2423), "##ing", "<0xE7>"
  size_t begin = 0;   // byte offsets of the piece in the input text: [begin, end); special tokens
  size_t end = 0;     // the tokenizer adds have begin == end
  bool added =
      false;  // added by the tokenizer's post-processor ([CLS], <s>), not read from the text
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Text → pieces; with add_special, the special tokens the model's own post-processor adds
  // (GPT-2 adds none). A feature of the file that attnviz does not implement is an Error naming it.
  virtual std::vector<TokenPiece> encode(std::string_view text, bool add_special) const = 0;
  // The id of the unknown token ([UNK], <unk>) when the vocabulary has one, so unknown pieces can
  // be counted.
  virtual std::optional<int64_t> unknown_id() const { return std::nullopt; }
  // The id of the tokenizer's BOS token when it has one (transformers' bos_token, from
  // tokenizer_config.json or the class's default; a GGUF file's bos_token_id), whether or not
  // encode adds it: what --bos always puts first and --bos never takes away.
  virtual std::optional<int64_t> bos_id() const { return std::nullopt; }
  // The readable label of an id, as encode() labels it; "#id" for an id the vocabulary lacks.
  virtual std::string label(int64_t id) const = 0;
  // The token of an id as the vocabulary spells it ("Ġcat", "▁cat", "##ing": transformers'
  // convert_ids_to_tokens); none for an id the vocabulary lacks.
  virtual std::optional<std::string> token(int64_t id) const = 0;
  virtual int64_t vocab_size() const = 0;
  // "GPT-2 byte-level BPE (vocab.json + merges.txt, 50257 tokens, 50000 merges)", for messages.
  virtual std::string description() const = 0;
};

// --bos: the BOS token as the tokenizer's post-processor and tokenizer_config.json's add_bos_token
// decide (automatic), put first where they do not add it (always: TransformerLens's prepend_bos),
// or left out (never).
enum class BosMode { automatic, always, never };

// "auto", "always" or "never" (the flag's checked values) as a BosMode.
BosMode bos_mode_of(std::string_view flag);

// encode(text, add_special), then the BOS token as `mode` says: always adds it unless the tokenizer
// has already added it (a BOS typed in the text is the text's), never drops the one it added.
// always with a tokenizer that has no BOS token is a usage Error naming the tokenizer.
std::vector<TokenPiece> encode_with_bos(const Tokenizer& tokenizer, std::string_view text,
                                        bool add_special, BosMode mode);

// "3 pieces of the text are not in the vocabulary: they became [UNK] (id 100)", for stderr; empty
// when no piece is the unknown token.
std::string unknown_pieces_note(const Tokenizer& tokenizer, const std::vector<TokenPiece>& pieces);

}  // namespace attnviz
