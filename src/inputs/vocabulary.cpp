// vocab.txt and the lookup of tokens in it.
#include "attnviz/inputs/vocabulary.hpp"

#include <fmt/format.h>

#include <sstream>
#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

namespace fs = std::filesystem;

Vocabulary read_vocabulary(const fs::path& dir) {
  Vocabulary vocab;
  vocab.path = dir / "vocab.txt";
  std::error_code ec;
  if (fs::exists(vocab.path, ec)) {
    std::istringstream in(read_text_file(vocab.path.string()));  // bounded, regular files only
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a CRLF file keeps its ids
      vocab.tokens.push_back(line);
    }
    // A UTF-8 byte order mark is not part of token 0.
    if (!vocab.tokens.empty() && vocab.tokens.front().starts_with("\xEF\xBB\xBF"))
      vocab.tokens.front().erase(0, 3);
  }
  vocab.tokenizer_files = tokenizer_files_in(dir);
  return vocab;
}

std::vector<std::string> tokenizer_files_in(const fs::path& dir) {
  std::vector<std::string> found;
  for (const char* name : {"tokenizer.json", "vocab.json", "merges.txt", "tokenizer.model",
                           "spiece.model", "sentencepiece.bpe.model"}) {
    std::error_code ec;
    if (fs::exists(dir / name, ec)) found.emplace_back(name);
  }
  return found;
}

namespace {

// The model has trained embeddings but attnviz has no vocabulary to look its tokens up in.
// tokenizer.json, vocab.json + merges.txt and SentencePiece models make ids from text (--text),
// not from pre-split tokens.
Error no_vocabulary(const Vocabulary& vocab, const std::string& model, int table_rows) {
  std::string found;
  for (const auto& f : vocab.tokenizer_files) found += (found.empty() ? "" : ", ") + f;
  const std::string why =
      found.empty()
          ? ""
          : fmt::format(" (found {}: that tokenizer makes ids from text, so give --text)", found);
  return usage_error(fmt::format(
      "{} has a token embedding table ({} rows), so tokens must become its ids, but there is no "
      "vocabulary for pre-split tokens: looked for {}{}; give --text, --ids (the ids its tokenizer "
      "produces) or --embeddings",
      model, table_rows, vocab.path.string(), why));
}

// "3 of 9 tokens are not in …/vocab.txt and are embedded as [UNK] (id 100): quick, zebra, jumped"
std::string unknown_note(const Vocabulary& vocab, const std::vector<std::string>& unknown, size_t n,
                         int64_t unk_id) {
  std::string list;
  for (size_t i = 0; i < unknown.size() && i < 10; ++i) list += (i ? ", " : "") + unknown[i];
  if (unknown.size() > 10) list += fmt::format(", … ({} more)", unknown.size() - 10);
  return fmt::format("{} of {} {} not in {} and {} embedded as [UNK] (id {}): {}", unknown.size(),
                     count_of(static_cast<long long>(n), "token"),
                     unknown.size() == 1 ? "is" : "are", vocab.path.string(),
                     unknown.size() == 1 ? "is" : "are", unk_id, list);
}

}  // namespace

TokenIds look_up_tokens(const Vocabulary& vocab, const std::vector<std::string>& tokens,
                        const std::string& model, int table_rows) {
  if (vocab.tokens.empty()) throw no_vocabulary(vocab, model, table_rows);
  std::unordered_map<std::string, int64_t> ids;
  for (size_t i = 0; i < vocab.tokens.size(); ++i) ids[vocab.tokens[i]] = static_cast<int64_t>(i);
  TokenIds out{{}, tokens, {}};
  std::vector<std::string> unknown;
  int64_t unk_id = -1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = ids.find(tokens[i]);
    if (it == ids.end()) {
      it = ids.find("[UNK]");
      if (it == ids.end()) {
        throw Error(
            fmt::format("token {} '{}' is not in the vocabulary of {} ({}, which has no [UNK])", i,
                        tokens[i], model, vocab.path.string()));
      }
      unknown.push_back(tokens[i]);
      unk_id = it->second;
      out.labels[i] = "[UNK]";  // what the model sees
    }
    if (it->second >= table_rows) {
      throw Error(fmt::format("token '{}' has id {}, past the embedding table's {} rows", tokens[i],
                              it->second, table_rows));
    }
    out.ids.push_back(it->second);
  }
  if (!unknown.empty()) out.notes.push_back(unknown_note(vocab, unknown, tokens.size(), unk_id));
  return out;
}

std::vector<std::string> id_labels(const Vocabulary& vocab, const std::vector<int64_t>& ids) {
  std::vector<std::string> labels;
  labels.reserve(ids.size());
  for (const int64_t id : ids) {
    labels.push_back(id >= 0 && static_cast<size_t>(id) < vocab.tokens.size()
                         ? vocab.tokens[id]
                         : fmt::format("#{}", id));
  }
  return labels;
}

}  // namespace attnviz
