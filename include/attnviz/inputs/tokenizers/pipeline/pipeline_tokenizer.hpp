// A tokenizer assembled from pipeline parts (tokenizer.json, BERT's vocab.txt): added tokens split
// out first, then normalizer → pre-tokenizer → model on the text between them, then the
// post-processor (private to inputs/).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

// An entry of tokenizer.json's "added_tokens": matched in the text before anything else runs.
struct AddedToken {
  int64_t id = 0;  // -1: a special token the vocabulary lacks; a text holding it is an Error
  std::string content;
  bool single_word = false;  // only where no word character touches it
  bool lstrip = false;       // takes the white space before it
  bool rstrip = false;       // takes the white space after it
  bool normalized = false;   // matched in the normalized text (its content normalized too)
  bool special = false;
};

// How the vocabulary writes a token, and so how its label is made readable.
enum class LabelStyle {
  plain,       // WordPiece, SentencePiece-style without "▁": the token as text ("##ing")
  byte_level,  // GPT-2's alphabet: "Ġcat" is the bytes " cat", shown "␣cat"
  metaspace,   // SentencePiece's "▁" for a space: "▁cat" shown "␣cat"; "<0xE7>" kept
};

struct PipelineParts {
  std::string source;  // the file, for messages: "models/x/tokenizer.json"
  std::string
      description;  // "tokenizer.json: BPE (byte-level)"; the model's own description follows
  std::unique_ptr<Normalizer> normalizer;         // may be null
  std::unique_ptr<PreTokenizer> pre_tokenizer;    // may be null: the whole text is one word
  std::unique_ptr<TokenModel> model;              // required
  std::unique_ptr<PostProcessor> post_processor;  // may be null: no special tokens added
  std::vector<AddedToken> added_tokens;
  std::optional<int64_t> bos;  // the BOS token's id (tokenizer_config.json's bos_token), if any
  LabelStyle labels = LabelStyle::plain;
};

std::unique_ptr<Tokenizer> make_pipeline_tokenizer(PipelineParts parts);

// The readable label of a token as the vocabulary writes it.
std::string readable_label(std::string_view token, LabelStyle style);

}  // namespace attnviz
