// MarianTokenizer: SentencePiece pieces, looked up in vocab.json, </s> appended.
#include "attnviz/inputs/tokenizers/sentencepiece/marian_tokenizer.hpp"

#include <fmt/format.h>
#include <sentencepiece_processor.h>

#include <map>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"
#include "attnviz/io/json.hpp"
#include "spm_files.hpp"

namespace attnviz {

namespace fs = std::filesystem;

bool is_marian_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "source.spm", ec) && fs::exists(dir / "target.spm", ec) &&
         fs::exists(dir / "vocab.json", ec);
}

namespace {

// Marian's vocabularies hold about 60k pieces; a bound keeps a hostile file from making billions.
constexpr int64_t k_max_vocab_ids = int64_t{1} << 24;

// vocab.json: {"</s>": 0, "<unk>": 1, "▁the": 2, …, "<pad>": 58100}; every id once.
struct MarianVocab {
  std::map<std::string, int64_t, std::less<>> ids;
  std::vector<std::string> pieces;  // by id; "" for an id no piece has (or the piece "")
};

MarianVocab read_marian_vocab(const fs::path& file) {
  const nlohmann::json j = read_json_file(file);
  if (!j.is_object()) {
    throw Error(
        fmt::format("{}: expected an object of piece → id, got {}", file.string(), j.type_name()));
  }
  MarianVocab v;
  std::vector<bool> taken;
  for (const auto& [piece, id] : j.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= k_max_vocab_ids) {
      throw Error(fmt::format("{}: \"{}\": expected an id in [0, {}), got {}", file.string(),
                              printable_text(piece), k_max_vocab_ids, id.dump()));
    }
    const auto n = static_cast<size_t>(id.get<int64_t>());
    if (n >= v.pieces.size()) {
      v.pieces.resize(n + 1);
      taken.resize(n + 1);
    }
    if (taken[n]) {
      throw Error(fmt::format("{}: id {} is given to both \"{}\" and \"{}\"", file.string(), n,
                              printable_text(v.pieces[n]), printable_text(piece)));
    }
    taken[n] = true;
    v.pieces[n] = piece;
    v.ids.emplace(piece, static_cast<int64_t>(n));
  }
  if (v.ids.empty()) throw Error(fmt::format("{}: no pieces", file.string()));
  return v;
}

class MarianTokenizer final : public Tokenizer {
 public:
  MarianTokenizer(const fs::path& dir, MarianSide side)
      : spm_file_((dir / (side == MarianSide::source ? "source.spm" : "target.spm")).string()),
        vocab_file_((dir / "vocab.json").string()),
        side_(side) {
    detail::load_sentencepiece(spm_file_, sp_);
    vocab_ = read_marian_vocab(vocab_file_);
    const TokenizerConfig config = read_tokenizer_config(dir);
    const SpecContext ctx{(dir / "tokenizer_config.json").string()};
    const SpecPlace place{ctx, ""};
    // A target vocabulary of its own (target_vocab.json) gives the decoder's ids: not read.
    spec_require_value(config.json, "separate_vocabs", false, place);
    spec_require_value(config.json, "sp_model_kwargs", nlohmann::json::object(), place);
    const auto id_of = [&](std::string_view field, const char* fallback) {
      const std::string text = config.token(field).value_or(fallback);
      const auto it = vocab_.ids.find(text);
      if (it == vocab_.ids.end()) {
        throw Error(fmt::format("{}: the {} '{}' is not in {}", ctx.file, field,
                                printable_text(text), vocab_file_));
      }
      specials_.push_back(text);
      return it->second;
    };
    unk_ = id_of("unk_token", "<unk>");  // MarianTokenizer: KeyError without it
    eos_ = id_of("eos_token", "</s>");
    id_of("pad_token", "<pad>");
  }

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    std::vector<TokenPiece> pieces;
    // remove_language_code: ">>fra<<" up to the first "<<", when the text starts with ">>".
    size_t code_end = 0;
    if (text.starts_with(">>")) {
      if (const size_t at = text.find("<<"); at != std::string_view::npos) code_end = at + 2;
    }
    if (code_end > 0) {
      const std::string code(text.substr(0, code_end));
      const auto it = vocab_.ids.find(code);
      if (it == vocab_.ids.end()) {
        throw Error(fmt::format(
            "{}: the text starts with the language code '{}', which is not in it (transformers "
            "versions give it <unk> or an unrelated id)",
            vocab_file_, printable_text(code)));
      }
      pieces.push_back({it->second, label(it->second), 0, code_end});
    }
    const std::string_view rest = text.substr(code_end);
    detail::refuse_special_text(rest, specials_, spm_file_, "Marian's .spm files", "give --ids");
    sentencepiece::ImmutableSentencePieceText spt;
    if (const auto status = sp_.Encode(rest, spt.mutable_proto()); !status.ok()) {
      throw Error(fmt::format("{}: SentencePiece cannot encode the text: {}", spm_file_,
                              status.error_message()));
    }
    for (const auto& piece : spt.pieces()) {
      int64_t id = unk_;
      if (!sp_.IsUnknown(static_cast<int>(piece.id()))) {
        const auto it = vocab_.ids.find(piece.piece());
        if (it == vocab_.ids.end()) {
          throw Error(fmt::format(
              "{}: the piece '{}' of {} is not in it (transformers versions give it <unk> or "
              "its SentencePiece id {}): attnviz does not choose",
              vocab_file_, printable_text(piece.piece()), spm_file_, piece.id()));
        }
        id = it->second;
      }
      pieces.push_back({id, label(id), code_end + piece.begin(), code_end + piece.end()});
    }
    if (add_special) pieces.push_back({eos_, label(eos_), text.size(), text.size(), true});
    return pieces;
  }

  std::optional<int64_t> unknown_id() const override { return unk_; }

  std::optional<std::string> token(int64_t id) const override {
    if (id < 0 || id >= vocab_size() || vocab_.pieces[size_t(id)].empty()) return std::nullopt;
    return vocab_.pieces[size_t(id)];
  }

  std::string label(int64_t id) const override {
    const auto piece = token(id);
    if (!piece) return fmt::format("#{}", id);
    return detail::spm_piece_label(*piece);
  }

  int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.pieces.size()); }

  std::string description() const override {
    return fmt::format("Marian SentencePiece ({} + vocab.json, {}; the {} side)",
                       fs::path(spm_file_).filename().string(), count_of(vocab_size(), "token"),
                       side_ == MarianSide::source ? "source" : "target");
  }

 private:
  std::string spm_file_, vocab_file_;
  MarianSide side_;
  sentencepiece::SentencePieceProcessor sp_;
  MarianVocab vocab_;
  std::vector<std::string> specials_;
  int64_t unk_ = 0, eos_ = 0;
};

}  // namespace

std::unique_ptr<Tokenizer> make_marian_tokenizer(const fs::path& dir, MarianSide side) {
  return std::make_unique<MarianTokenizer>(dir, side);
}

}  // namespace attnviz
