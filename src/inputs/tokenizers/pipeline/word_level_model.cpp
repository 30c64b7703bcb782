// tokenizers' WordLevel model: each pre-token is one token of the vocabulary, or the unknown token.
#include <fmt/format.h>

#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "vocab_map.hpp"

namespace attnviz {

namespace {

class WordLevelModel final : public TokenModel {
 public:
  WordLevelModel(VocabMap vocab, std::optional<std::string> unk, std::string source)
      : vocab_(std::move(vocab)), unk_(std::move(unk)), source_(std::move(source)) {}

  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    if (const auto id = vocab_.id(word.text)) {
      out.push_back({*id, word.text, word.input_begin(), word.input_end()});
      return;
    }
    const auto unk_id = unk_ ? vocab_.id(*unk_) : std::nullopt;
    if (!unk_id) {  // tokenizers' MissingUnkToken: the file loads, the word does not encode
      throw Error(fmt::format(
          "{}: the word '{}' is not in the vocabulary, {}", source_, printable_text(word.text),
          unk_ ? fmt::format("and its unk_token '{}' is not either", printable_text(*unk_))
               : std::string("which has no unknown token")));
    }
    out.push_back({*unk_id, *unk_, word.input_begin(), word.input_end()});
  }
  std::optional<int64_t> token_to_id(std::string_view token) const override {
    return vocab_.id(token);
  }
  std::optional<std::string> id_to_token(int64_t id) const override { return vocab_.token(id); }
  int64_t vocab_size() const override { return vocab_.size(); }
  std::optional<int64_t> unknown_id() const override {
    return unk_ ? vocab_.id(*unk_) : std::nullopt;
  }
  std::string description() const override {
    return fmt::format("WordLevel, {}", count_of(static_cast<long long>(vocab_.count()), "token"));
  }

 private:
  VocabMap vocab_;
  std::optional<std::string> unk_;
  std::string source_;
};

}  // namespace

std::unique_ptr<TokenModel> make_word_level_model(const nlohmann::json& spec,
                                                  const SpecPlace& place) {
  VocabMap vocab = read_vocab_map(spec_required(spec, "vocab", place), place.at("vocab"));
  // An unk_token the vocabulary lacks is read, as tokenizers reads it: a word missing from the
  // vocabulary is then an error when it is encoded.
  std::optional<std::string> unk = spec_optional_string(spec, "unk_token", place);
  return std::make_unique<WordLevelModel>(std::move(vocab), std::move(unk), place.ctx.file);
}

}  // namespace attnviz
