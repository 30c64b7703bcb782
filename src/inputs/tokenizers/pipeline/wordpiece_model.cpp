// WordPiece (BERT): each word split greedily into the longest pieces of the vocabulary, the
// pieces after the first written with the continuing-subword prefix ("##"), as tokenizers'
// models/wordpiece does.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "vocab_map.hpp"

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
  WordPieceModel(VocabMap vocab, std::string unk, std::string prefix, size_t max_chars,
                 std::string where)
      : vocab_(std::move(vocab)),
        unk_(std::move(unk)),
        prefix_(std::move(prefix)),
        max_chars_(max_chars),
        where_(std::move(where)) {}

  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    const std::string_view text = word.text;
    if (char_count(text) > max_chars_) {
      out.push_back(unknown(word));
      return;
    }
    const size_t first = out.size();
    std::string candidate;
    for (size_t start = 0; start < text.size();) {
      // The longest piece from `start` the vocabulary has, shortening one character at a time; none
      // is longer than the longest token, so the search starts there (a 200 kB word is not tried
      // whole at every start, which took minutes).
      size_t end = first_end(text, start);
      std::optional<int64_t> id;
      for (; end > start; end -= last_char_length(text.substr(start, end - start))) {
        candidate.assign(start > 0 ? prefix_ : std::string());
        candidate.append(text.substr(start, end - start));
        if ((id = vocab_.id(candidate))) break;
      }
      if (!id) {  // a part no piece covers: the whole word is unknown
        out.resize(first);
        out.push_back(unknown(word));
        return;
      }
      out.push_back({*id, candidate, word.origin[start], word.origin[end]});
      start = end;
    }
  }

  // Where the candidates from `start` begin: the end of the text, or of the longest piece the
  // vocabulary could hold there (at a character boundary).
  size_t first_end(std::string_view text, size_t start) const {
    const size_t prefix = start > 0 ? prefix_.size() : 0;
    if (vocab_.longest() <= prefix) return start;
    size_t end = std::min(text.size(), start + (vocab_.longest() - prefix));
    while (end > start && end < text.size() &&
           (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
      --end;
    return end;
  }

  std::optional<int64_t> token_to_id(std::string_view token) const override {
    return vocab_.id(token);
  }
  std::optional<std::string> id_to_token(int64_t id) const override { return vocab_.token(id); }
  int64_t vocab_size() const override { return vocab_.size(); }
  std::optional<int64_t> unknown_id() const override { return vocab_.id(unk_); }
  std::string description() const override {
    return fmt::format("WordPiece, {} tokens", vocab_.count());
  }

 private:
  TokenPiece unknown(const NormalizedText& word) const {
    const auto id = vocab_.id(unk_);
    if (!id) {
      throw Error(fmt::format(
          "{}: the word '{}' has no pieces in the vocabulary and its unk_token '{}' is not in "
          "the vocabulary either",
          where_, printable_text(word.text), printable_text(unk_)));
    }
    return {*id, unk_, word.input_begin(), word.input_end()};
  }

  VocabMap vocab_;
  std::string unk_;
  std::string prefix_;
  size_t max_chars_;
  std::string where_;  // "FILE: model", for the error of a missing unk token
};

}  // namespace

std::unique_ptr<TokenModel> make_wordpiece_model(const nlohmann::json& spec,
                                                 const SpecPlace& place) {
  VocabMap vocab = read_vocab_map(spec_required(spec, "vocab", place), place.at("vocab"));
  // The defaults of tokenizers' WordPieceBuilder.
  std::string unk = spec_optional_string(spec, "unk_token", place).value_or("[UNK]");
  std::string prefix =
      spec_optional_string(spec, "continuing_subword_prefix", place).value_or("##");
  const int64_t max_chars = spec_int(spec, "max_input_chars_per_word", 100, place);
  if (max_chars < 0)
    place.at("max_input_chars_per_word").fail(fmt::format("expected >= 0, got {}", max_chars));
  return std::make_unique<WordPieceModel>(std::move(vocab), std::move(unk), std::move(prefix),
                                          static_cast<size_t>(max_chars),
                                          fmt::format("{}: {}", place.ctx.file, place.where));
}

}  // namespace attnviz
