// A model's vocabulary (BERT's vocab.txt: line number = id) and tokens → ids through it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnviz {

struct Vocabulary {
  std::vector<std::string> tokens;           // id → token; empty when there is none
  std::filesystem::path path;                // where vocab.txt was looked for, for messages
  std::vector<std::string> tokenizer_files;  // the other tokenizer files beside it, for messages
};

// dir/vocab.txt (one token per line, CRLF kept apart, a UTF-8 BOM dropped; bounded, regular files
// only) and the names of other tokenizer files in dir (tokenizer.json, vocab.json + merges.txt,
// SentencePiece models), named in the error when tokens cannot be looked up without them.
Vocabulary read_vocabulary(const std::filesystem::path& dir);

// The tokenizer files in dir, in a fixed order: tokenizer.json, vocab.json, merges.txt and the
// SentencePiece models.
std::vector<std::string> tokenizer_files_in(const std::filesystem::path& dir);

// What the model sees for a list of token strings.
struct TokenIds {
  std::vector<int64_t> ids;
  std::vector<std::string> labels;  // the token, or "[UNK]" where it was unknown
  std::vector<std::string> notes;   // for stderr: unknown tokens counted
};

// token → id (a token listed twice takes its last line, as Hugging Face's load_vocab does);
// unknown tokens become [UNK] when the vocabulary has it, else an error naming the token. An
// empty vocabulary is a usage error: `model` has a `table_rows`-row embedding table, so tokens
// need ids (never hash vectors).
TokenIds look_up_tokens(const Vocabulary& vocab, const std::vector<std::string>& tokens,
                        const std::string& model, int table_rows);

// The label of each id: its token in the vocabulary, or "#id".
std::vector<std::string> id_labels(const Vocabulary& vocab, const std::vector<int64_t>& ids);

}  // namespace attnviz
