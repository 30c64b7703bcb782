// The BPE model of tokenizer.json, with Hugging Face tokenizers' semantics (models/bpe/model.rs):
// a pre-token starts as its characters (each looked up with continuing_subword_prefix when not
// first, end_of_word_suffix when last), a character the vocabulary lacks becomes its bytes'
// "<0xE7>" tokens (byte_fallback) or the unknown token (fused with unknown neighbours under
// fuse_unk), then merges apply lowest rank first. Where tokenizers would silently drop a
// character (no unk_token), attnviz refuses with an error naming it.
#include <fmt/format.h>

#include <array>
#include <optional>
#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/bpe.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "vocab_map.hpp"

namespace attnviz {

namespace {

class BpeModel final : public TokenModel {
 public:
  BpeModel(const nlohmann::json& spec, const SpecPlace& place)
      : file_(place.ctx.file),
        where_(place.where),
        unk_token_(spec_optional_string(spec, "unk_token", place)),
        prefix_(spec_optional_string(spec, "continuing_subword_prefix", place).value_or("")),
        suffix_(spec_optional_string(spec, "end_of_word_suffix", place).value_or("")),
        fuse_unk_(spec_bool(spec, "fuse_unk", false, place)),
        byte_fallback_(spec_bool(spec, "byte_fallback", false, place)),
        ignore_merges_(spec_bool(spec, "ignore_merges", false, place)) {
    check_dropout(spec, place);
    vocab_ = read_vocab_map(spec_required(spec, "vocab", place), place.at("vocab"));
    read_merges(spec_required(spec, "merges", place), place.at("merges"));
    for (size_t b = 0; b < 256; ++b) {
      const auto id = find(fmt::format("<0x{:02X}>", b));
      byte_ids_[b] = id ? *id : -1;
    }
  }

  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    const std::string_view text = word.text;
    if (text.empty()) return;
    std::vector<BpeSymbol> symbols;
    if (const auto whole = ignore_merges_ ? find(text) : std::nullopt) {
      // ignore_merges: a word the vocabulary holds whole is that token, whatever the merges say.
      symbols.push_back({*whole, static_cast<uint32_t>(text.size())});
    } else if (auto cached = cache_.find(text)) {
      symbols = std::move(*cached);
    } else {
      symbols = initial_symbols(word);
      merges_.merge_all(symbols, MergeOrder::by_rank);
      cache_.insert(text, symbols);
    }
    size_t at = 0;
    for (const BpeSymbol& symbol : symbols) {
      out.push_back(
          {symbol.id, *vocab_.token(symbol.id), word.origin[at], word.origin[at + symbol.length]});
      at += symbol.length;
    }
  }

  std::optional<int64_t> token_to_id(std::string_view token) const override {
    const auto id = find(token);
    return id ? std::optional<int64_t>(*id) : std::nullopt;
  }

  std::optional<std::string> id_to_token(int64_t id) const override { return vocab_.token(id); }

  int64_t vocab_size() const override { return vocab_.size(); }

  std::optional<int64_t> unknown_id() const override {
    return unk_token_ ? vocab_.id(*unk_token_) : std::nullopt;
  }

  std::string description() const override {
    return fmt::format("BPE, {}, {}", count_of(static_cast<long long>(vocab_.count()), "token"),
                       count_of(static_cast<long long>(merges_.size()), "merge"));
  }

 private:
  std::optional<int32_t> find(std::string_view token) const {
    const auto id = vocab_.id(token);  // below 2^31: read_vocab_map checks
    return id ? std::optional<int32_t>(static_cast<int32_t>(*id)) : std::nullopt;
  }

  // Dropout samples merges at random on every call, so the same text would give other ids.
  static void check_dropout(const nlohmann::json& spec, const SpecPlace& place) {
    const auto it = spec.find("dropout");
    if (it == spec.end() || it->is_null() || (it->is_number() && it->get<double>() == 0.0)) return;
    place.at("dropout").fail(
        fmt::format("{} drops merges at random, so a text has no one tokenization; attnviz "
                    "implements only null or 0",
                    printable_text(it->dump())));
  }

  // "merges": ["a b", …] (the older form: tokens separated by one space; "#version" lines
  // skipped) or [["a", "b"], …]; ranked by order. A merge joins a and b without b's
  // continuing_subword_prefix (tokenizers cuts that many bytes off b); a, b and the result must
  // all be in the vocabulary.
  void read_merges(const nlohmann::json& merges, const SpecPlace& place) {
    if (!merges.is_array())
      place.fail(fmt::format("expected a list of merges, got {}", merges.type_name()));
    for (size_t i = 0; i < merges.size(); ++i) {
      const nlohmann::json& entry = merges[i];
      const SpecPlace at = place.at(i);
      std::string first, second;
      if (entry.is_string()) {
        const auto& line = entry.get_ref<const std::string&>();
        if (line.starts_with("#version")) continue;
        const size_t space = line.find(' ');
        if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
          at.fail(fmt::format("expected two tokens separated by one space, got '{}'",
                              printable_text(line)));
        }
        first = line.substr(0, space);
        second = line.substr(space + 1);
      } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() &&
                 entry[1].is_string()) {
        first = entry[0].get<std::string>();
        second = entry[1].get<std::string>();
      } else {
        at.fail(fmt::format("expected \"first second\" or [\"first\", \"second\"], got {}",
                            printable_text(entry.dump())));
      }
      const std::string shown = printable_text(first + " " + second);
      auto id_of = [&](const std::string& token, std::string_view role) {
        const auto id = find(token);
        if (!id)
          at.fail(fmt::format("'{}': {} '{}' is not in the vocabulary", shown, role,
                              printable_text(token)));
        return *id;
      };
      const int32_t a = id_of(first, "its first token");
      const int32_t b = id_of(second, "its second token");
      if (second.size() < prefix_.size()) {
        at.fail(fmt::format("'{}': the second token is shorter than continuing_subword_prefix '{}'",
                            shown, printable_text(prefix_)));
      }
      merges_.add(a, b, id_of(first + second.substr(prefix_.size()), "the merged token"));
    }
  }

  // The word's characters as tokenizers' merge_word() turns them into symbols.
  std::vector<BpeSymbol> initial_symbols(const NormalizedText& word) const {
    const std::string_view text = word.text;
    std::vector<BpeSymbol> symbols;
    symbols.reserve(text.size());
    std::optional<BpeSymbol> unk;  // an unknown run waiting for the next known character
    std::string key;
    for_each_char(text, [&](char32_t, size_t at, size_t length) {
      const std::string_view c = text.substr(at, length);
      key.clear();
      if (at > 0) key += prefix_;
      key += c;
      if (at + length == text.size()) key += suffix_;
      if (const auto id = find(key)) {
        if (unk) symbols.push_back(*unk);
        unk.reset();
        symbols.push_back({*id, static_cast<uint32_t>(length)});
        return;
      }
      if (byte_fallback_ && byte_tokens_exist(key)) {
        if (key != c)
          fail_piece(
              word, at, length,
              "falls back to bytes with its continuing_subword_prefix or "
              "end_of_word_suffix, which tokenizers turns into byte tokens too; attnviz does not "
              "implement it");
        // tokenizers adds the bytes before a pending unknown token (out of the text's order).
        if (unk)
          fail_piece(word, at, length,
                     "falls back to bytes right after an unknown character, which "
                     "tokenizers puts after the bytes, out of the text's order; attnviz does not "
                     "implement it");
        for (const char b : key) symbols.push_back({byte_ids_[static_cast<uint8_t>(b)], 1});
        return;
      }
      if (!unk_token_) {
        // tokenizers drops the character without a trace; attnviz never drops a piece.
        fail_piece(word, at, length,
                   byte_fallback_ ? "is not in the vocabulary, nor are all its byte tokens, and "
                                    "the model has no unk_token"
                                  : "is not in the vocabulary, which has no unk_token");
      }
      if (unk && fuse_unk_) {
        unk->length += static_cast<uint32_t>(length);
        return;
      }
      if (unk) symbols.push_back(*unk);
      const auto unk_id = find(*unk_token_);
      if (!unk_id) {
        fail_piece(word, at, length,
                   fmt::format("is not in the vocabulary, and neither is the unk_token '{}'",
                               printable_text(*unk_token_)));
      }
      unk = BpeSymbol{*unk_id, static_cast<uint32_t>(length)};
    });
    if (unk) symbols.push_back(*unk);
    return symbols;
  }

  bool byte_tokens_exist(std::string_view bytes) const {
    for (const char b : bytes) {
      if (byte_ids_[static_cast<uint8_t>(b)] < 0) return false;
    }
    return true;
  }

  [[noreturn]] void fail_piece(const NormalizedText& word, size_t at, size_t length,
                               std::string_view why) const {
    throw Error(fmt::format("{}: {}: the character '{}' (input bytes {}..{}) {}", file_, where_,
                            printable_text(word.text.substr(at, length)), word.origin[at],
                            word.origin[at + length], why));
  }

  std::string file_, where_;  // for errors while tokenizing
  std::optional<std::string> unk_token_;
  std::string prefix_, suffix_;
  bool fuse_unk_, byte_fallback_, ignore_merges_;
  VocabMap vocab_;
  BpeMerges merges_;
  std::array<int32_t, 256> byte_ids_{};  // "<0x00>" … "<0xFF>", -1 when absent
  BpeCache cache_;
};

}  // namespace

std::unique_ptr<TokenModel> make_bpe_model(const nlohmann::json& spec, const SpecPlace& place) {
  return std::make_unique<BpeModel>(spec, place);
}

}  // namespace attnviz
