// WordPiece (BERT): each word split greedily into the longest pieces of the vocabulary, the
// pieces after the first written with the continuing-subword prefix ("##"), as tokenizers'
// models/wordpiece does.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "pipeline_parts.hpp"
#include "spec_fields.hpp"

namespace attnviz {

namespace {

size_t last_char_length(std::string_view text) {
  size_t n = 1;
  while (n < text.size() && (static_cast<unsigned char>(text[text.size() - n]) & 0xC0) == 0x80) ++n;
  return n;
}

size_t char_count(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

class WordPieceModel final : public TokenModel {
 public:
  WordPieceModel(std::unordered_map<std::string, int64_t> vocab, std::string unk, std::string prefix,
                 size_t max_chars, std::string where)
      : vocab_(std::move(vocab)), unk_(std::move(unk)), prefix_(std::move(prefix)), max_chars_(max_chars),
        where_(std::move(where)) {
    for (const auto& [token, id] : vocab_) {
      by_id_.emplace(id, token);
      size_ = std::max(size_, id + 1);
    }
  }

  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    const std::string_view text = word.text;
    if (char_count(text) > max_chars_) {
      out.push_back(unknown(word));
      return;
    }
    const size_t first = out.size();
    std::string candidate;
    for (size_t start = 0; start < text.size();) {
      // The longest piece from `start` the vocabulary has, shortening one character at a time.
      size_t end = text.size();
      const int64_t* id = nullptr;
      for (; end > start; end -= last_char_length(text.substr(start, end - start))) {
        candidate.assign(start > 0 ? prefix_ : std::string());
        candidate.append(text.substr(start, end - start));
        if (const auto it = vocab_.find(candidate); it != vocab_.end()) {
          id = &it->second;
          break;
        }
      }
      if (id == nullptr) {  // a part no piece covers: the whole word is unknown
        out.resize(first);
        out.push_back(unknown(word));
        return;
      }
      out.push_back({*id, candidate, word.origin[start], word.origin[end]});
      start = end;
    }
  }

  std::optional<int64_t> token_to_id(std::string_view token) const override {
    if (const auto it = vocab_.find(std::string(token)); it != vocab_.end()) return it->second;
    return std::nullopt;
  }
  std::optional<std::string> id_to_token(int64_t id) const override {
    if (const auto it = by_id_.find(id); it != by_id_.end()) return it->second;
    return std::nullopt;
  }
  int64_t vocab_size() const override { return size_; }
  std::string description() const override { return fmt::format("WordPiece, {} tokens", vocab_.size()); }

 private:
  TokenPiece unknown(const NormalizedText& word) const {
    const auto it = vocab_.find(unk_);
    if (it == vocab_.end()) {
      throw Error(fmt::format("{}: the word '{}' has no pieces in the vocabulary and its unk_token '{}' is not in "
                              "the vocabulary either",
                              where_, printable_text(word.text), printable_text(unk_)));
    }
    return {it->second, unk_, word.input_begin(), word.input_end()};
  }

  std::unordered_map<std::string, int64_t> vocab_;
  std::unordered_map<int64_t, std::string> by_id_;
  std::string unk_;
  std::string prefix_;
  size_t max_chars_;
  std::string where_;  // "FILE: model", for the error of a missing unk token
  int64_t size_ = 0;
};

}  // namespace

std::unique_ptr<TokenModel> make_wordpiece_model(const nlohmann::json& spec, const SpecPlace& place) {
  const nlohmann::json& vocab_json = spec_required(spec, "vocab", place);
  if (!vocab_json.is_object()) place.at("vocab").fail("expected an object of token: id");
  std::unordered_map<std::string, int64_t> vocab;
  vocab.reserve(vocab_json.size());
  for (const auto& [token, id] : vocab_json.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0) {
      place.at("vocab").fail(fmt::format("the id of '{}' is {}, expected an integer >= 0", printable_text(token),
                                         printable_text(id.dump())));
    }
    vocab.emplace(token, id.get<int64_t>());
  }
  // The defaults of tokenizers' WordPieceBuilder.
  std::string unk = spec_optional_string(spec, "unk_token", place).value_or("[UNK]");
  std::string prefix = spec_optional_string(spec, "continuing_subword_prefix", place).value_or("##");
  const int64_t max_chars = spec_int(spec, "max_input_chars_per_word", 100, place);
  if (max_chars < 0) place.at("max_input_chars_per_word").fail(fmt::format("expected >= 0, got {}", max_chars));
  return std::make_unique<WordPieceModel>(std::move(vocab), std::move(unk), std::move(prefix),
                                          static_cast<size_t>(max_chars), fmt::format("{}: {}", place.ctx.file, place.where));
}

}  // namespace attnviz
