// GPT-2's tokenizer (vocab.json + merges.txt): pre-tokenizer regex, byte-level alphabet, BPE.
#include "attnviz/inputs/tokenizers/gpt2/gpt2_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/bpe.hpp"
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"
#include "attnviz/inputs/tokenizers/pipeline/gpt2_pretokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/special_split.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// vocab.json: a JSON object token → id. Tokens are in the byte-level alphabet; ids non-negative,
// below 2^31 and unique.
struct Vocab {
  std::unordered_map<std::string, int64_t> ids;     // the token's bytes → id
  std::unordered_map<int64_t, std::string> tokens;  // id → the token as written in the file
  int64_t max_id = -1;
};

Vocab read_vocab_json(const fs::path& path) {
  const nlohmann::json json = read_json_file(path);
  if (!json.is_object()) {
    throw Error(fmt::format("{}: expected a JSON object mapping tokens to ids, got {}",
                            path.string(), json.type_name()));
  }
  Vocab vocab;
  for (const auto& [token, value] : json.items()) {
    // nlohmann reads a non-negative integer as unsigned, a negative one as signed.
    constexpr uint64_t k_limit = uint64_t{1} << 31;
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= k_limit) {
      throw Error(
          fmt::format("{}: token '{}' has id {}, expected a non-negative integer below 2^31",
                      path.string(), printable_text(token), value.dump()));
    }
    const auto id = static_cast<int64_t>(value.get<uint64_t>());
    if (const auto [it, fresh] = vocab.tokens.emplace(id, token); !fresh) {
      throw Error(fmt::format("{}: tokens '{}' and '{}' both have id {} (ids must be unique)",
                              path.string(), printable_text(it->second), printable_text(token),
                              id));
    }
    // A token with a character outside the byte-level alphabet can never come out of text; it
    // keeps its id and label.
    if (auto bytes = byte_level_decode(token)) vocab.ids.emplace(std::move(*bytes), id);
    vocab.max_id = std::max(vocab.max_id, id);
  }
  return vocab;
}

// merges.txt: an optional "#version…" first line, then "first second" per line, ranked by order.
// Symbols are byte strings interned in `symbols`: the 256 single bytes first (id = the byte), then
// each merge's parts and result.
BpeMerges read_merges_txt(const fs::path& path, SymbolTable& symbols) {
  for (int b = 0; b < 256; ++b) symbols.intern(std::string(1, static_cast<char>(b)));
  // Bounded, regular files only; a UTF-8 byte order mark is not part of the first line.
  std::istringstream in(std::string(strip_utf8_bom(read_text_file(path.string()))));
  BpeMerges merges;
  size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1 && line.starts_with("#version")) continue;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      throw Error(fmt::format("{}: line {}: expected two tokens separated by one space, got '{}'",
                              path.string(), line_number, printable_text(line)));
    }
    const auto first = byte_level_decode(std::string_view(line).substr(0, space));
    const auto second = byte_level_decode(std::string_view(line).substr(space + 1));
    if (!first || !second) {
      throw Error(
          fmt::format("{}: line {}: '{}' has a character outside GPT-2's byte-level alphabet",
                      path.string(), line_number, printable_text(line)));
    }
    merges.add(symbols.intern(*first), symbols.intern(*second), symbols.intern(*first + *second));
  }
  return merges;
}

// The vocabulary id of each symbol, -1 for a symbol (a merge's result) vocab.json lacks.
std::vector<int64_t> vocab_ids_of(const SymbolTable& symbols, const Vocab& vocab) {
  std::vector<int64_t> ids(symbols.size(), -1);
  for (size_t s = 0; s < symbols.size(); ++s) {
    if (const auto it = vocab.ids.find(symbols.text(static_cast<int32_t>(s)));
        it != vocab.ids.end()) {
      ids[s] = it->second;
    }
  }
  return ids;
}

// What transformers' GPT2Tokenizer takes from tokenizer_config.json: its special tokens (default
// "<|endoftext|>" as unk, bos and eos), the added tokens, and add_bos_token. Every one of them is
// matched in the text as a token of its own.
struct Gpt2Specials {
  std::vector<SpecialToken> in_text;
  std::optional<int64_t> bos;        // added before the text when add_bos_token is true
  std::optional<int64_t> bos_token;  // the bos_token's id, added or not
};

Gpt2Specials read_gpt2_specials(const fs::path& dir, const Vocab& vocab) {
  const TokenizerConfig config = read_tokenizer_config(dir);
  const std::string file =
      config.path.empty() ? (dir / "tokenizer_config.json").string() : config.path.string();
  if (const auto cls = config.text("tokenizer_class");
      cls && *cls != "GPT2Tokenizer" && *cls != "GPT2TokenizerFast") {
    throw Error(fmt::format(
        "{}: tokenizer_class: attnviz reads vocab.json + merges.txt as GPT2Tokenizer does; {} "
        "adds or handles special tokens otherwise (give its tokenizer.json)",
        file, printable_text(*cls)));
  }
  if (config.flag("add_prefix_space").value_or(false)) {
    throw Error(
        fmt::format("{}: add_prefix_space: true (a space before the text) is not implemented for "
                    "vocab.json + merges.txt",
                    file));
  }
  Gpt2Specials specials;
  // A special token vocab.json lacks gets a new id in transformers, one past the vocabulary: it
  // is kept with id -1, and a text holding it is refused.
  const auto add = [&](const std::string& content, std::optional<int64_t> id) {
    if (!id) {
      const auto bytes = byte_level_decode(content);
      const auto it = bytes ? vocab.ids.find(*bytes) : vocab.ids.end();
      id = it == vocab.ids.end() ? -1 : it->second;
    }
    specials.in_text.push_back({content, *id});
    return *id;
  };
  std::optional<int64_t> bos_id;
  for (const char* field : {"unk_token", "bos_token", "eos_token", "pad_token"}) {
    const bool defaulted = std::string_view(field) != "pad_token";
    const std::optional<std::string> token =
        config.json.contains(field)
            ? config.token(field)
            : (defaulted ? std::optional<std::string>("<|endoftext|>") : std::nullopt);
    if (!token) continue;
    const int64_t id = add(*token, std::nullopt);
    if (std::string_view(field) == "bos_token" && id >= 0) bos_id = id;
  }
  if (const auto it = config.json.find("added_tokens_decoder");
      it != config.json.end() && !it->is_null()) {
    if (!it->is_object())
      throw Error(
          fmt::format("{}: added_tokens_decoder: expected an object, got {}", file, shown(*it)));
    for (const auto& [key, token] : it->items()) {
      const std::string field = "added_tokens_decoder." + key;
      int64_t id = -1;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
      if (ec != std::errc() || end != key.data() + key.size() || id < 0) {
        throw Error(fmt::format("{}: {}: the key is not an id", file, printable_text(field)));
      }
      if (!token.is_object() || !token.contains("content") || !token.at("content").is_string()) {
        throw Error(fmt::format("{}: {}: expected {{\"content\": …}}, got {}", file,
                                printable_text(field), shown(token)));
      }
      for (const char* option : {"lstrip", "rstrip", "single_word"}) {
        if (token.value(option, false) == true) {
          throw Error(fmt::format("{}: {}.{}: true is not implemented for vocab.json + merges.txt",
                                  file, printable_text(field), option));
        }
      }
      add(token.at("content").get<std::string>(), id);
    }
  }
  specials.bos_token = bos_id;
  if (config.flag("add_bos_token").value_or(false)) {
    if (!bos_id)
      throw Error(
          fmt::format("{}: add_bos_token: true, but the bos_token is not in vocab.json", file));
    specials.bos = bos_id;
  }
  return specials;
}

class Gpt2Tokenizer final : public Tokenizer {
 public:
  explicit Gpt2Tokenizer(const fs::path& dir)
      : vocab_path_(dir / "vocab.json"),
        vocab_(read_vocab_json(vocab_path_)),
        merges_(read_merges_txt(dir / "merges.txt", symbols_)),
        vocab_of_symbol_(vocab_ids_of(symbols_, vocab_)),
        specials_(read_gpt2_specials(dir, vocab_)) {}

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    std::vector<TokenPiece> pieces;
    // Growing a vector of 56-byte pieces by doubling copies it about as often as it writes it;
    // pages reserved but never written cost no memory, so reserve past English's ~4 bytes a token.
    pieces.reserve(text.size() / 2 + 1);
    if (add_special && specials_.bos)
      pieces.push_back({*specials_.bos, label(*specials_.bos), 0, 0, true});
    for (const SpecialSegment& segment : split_specials(text, specials_.in_text)) {
      if (segment.token != nullptr) {
        if (segment.token->id < 0) {
          throw Error(fmt::format(
              "{}: the text holds '{}' at byte {}, a special token of GPT2Tokenizer that is not "
              "in vocab.json (transformers would give it a new id, outside the model's table)",
              vocab_path_.string(), printable_text(segment.token->content), segment.begin));
        }
        pieces.push_back({segment.token->id, printable_text(segment.token->content), segment.begin,
                          segment.end});
      } else {
        encode_plain(text, segment.begin, segment.end, pieces);
      }
    }
    return pieces;
  }

  // The pieces of whole[from, to), which holds no special token.
  void encode_plain(std::string_view whole, size_t from, size_t to,
                    std::vector<TokenPiece>& pieces) const {
    const std::string_view text = whole.substr(0, to);
    for (auto [begin, end] : gpt2_pretokenize(text.substr(from), "text")) {
      begin += from;
      end += from;
      const std::string_view word = text.substr(begin, end - begin);
      size_t at = begin;
      for (const BpeSymbol& symbol : merge(word)) {
        const std::string_view bytes = text.substr(at, symbol.length);
        const int64_t id = vocab_of_symbol_[static_cast<size_t>(symbol.id)];
        if (id < 0) {
          // GPT-2 has no unknown token: a piece the vocabulary lacks is never dropped or guessed.
          throw Error(
              fmt::format("{}: the piece '{}' (bytes {}..{} of the text, token '{}') is not in the "
                          "vocabulary, which has no unknown token",
                          vocab_path_.string(), byte_label(bytes), at, at + symbol.length,
                          byte_level_token(bytes)));
        }
        pieces.push_back({id, byte_label(bytes), at, at + symbol.length});
        at += symbol.length;
      }
    }
  }

  std::string label(int64_t id) const override {
    const auto it = vocab_.tokens.find(id);
    if (it == vocab_.tokens.end()) return fmt::format("#{}", id);
    const auto bytes = byte_level_decode(it->second);
    return bytes ? byte_label(*bytes) : printable_text(it->second);
  }

  std::optional<std::string> token(int64_t id) const override {
    const auto it = vocab_.tokens.find(id);
    return it == vocab_.tokens.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  // Ids are below vocab_size(): the largest id + 1 (the number of tokens when ids are dense).
  int64_t vocab_size() const override { return vocab_.max_id + 1; }
  std::optional<int64_t> bos_id() const override { return specials_.bos_token; }

  std::string description() const override {
    return fmt::format("GPT-2 byte-level BPE (vocab.json + merges.txt, {}, {})",
                       count_of(static_cast<long long>(vocab_.tokens.size()), "token"),
                       count_of(static_cast<long long>(merges_.size()), "merge"));
  }

 private:
  // The word's symbols after encoder.py's merges: single bytes first (a byte's symbol id is the
  // byte).
  std::vector<BpeSymbol> merge(std::string_view word) const {
    if (auto cached = cache_.find(word)) return std::move(*cached);
    std::vector<BpeSymbol> symbols;
    symbols.reserve(word.size());
    for (const char c : word) symbols.push_back({static_cast<uint8_t>(c), 1});
    merges_.merge_all(symbols, MergeOrder::by_round);
    cache_.insert(word, symbols);
    return symbols;
  }

  // The bytes as vocab.json writes them ("Ġcat"), for finding a missing piece in the file.
  static std::string byte_level_token(std::string_view bytes) {
    std::string token;
    for (const char c : bytes) {
      const char32_t cp = byte_to_unicode(static_cast<uint8_t>(c));
      if (cp < 0x80) {
        token.push_back(static_cast<char>(cp));
      } else {  // all below U+0800: two bytes
        token.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        token.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    }
    return token;
  }

  fs::path vocab_path_;
  Vocab vocab_;
  SymbolTable symbols_;  // byte strings of the merges (declared before merges_, which fills it)
  BpeMerges merges_;
  std::vector<int64_t> vocab_of_symbol_;
  Gpt2Specials specials_;
  BpeCache cache_;
};

}  // namespace

std::unique_ptr<Tokenizer> read_gpt2_tokenizer(const fs::path& dir) {
  std::error_code ec;
  const bool has_vocab = fs::exists(dir / "vocab.json", ec);
  const bool has_merges = fs::exists(dir / "merges.txt", ec);
  if (has_vocab != has_merges) {
    const fs::path missing = dir / (has_vocab ? "merges.txt" : "vocab.json");
    throw Error(fmt::format(
        "{}: no such file, but {} is beside it (GPT-2's byte-level BPE needs vocab.json "
        "and merges.txt)",
        missing.string(), has_vocab ? "vocab.json" : "merges.txt"));
  }
  return std::make_unique<Gpt2Tokenizer>(dir);
}

}  // namespace attnviz
