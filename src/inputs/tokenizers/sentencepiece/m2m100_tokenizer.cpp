// M2M100Tokenizer: SentencePiece pieces looked up in vocab.json, language tokens after it.
#include "attnviz/inputs/tokenizers/sentencepiece/m2m100_tokenizer.hpp"

#include <fmt/format.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"
#include "attnviz/io/json.hpp"
#include "spm_files.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_spm = "sentencepiece.bpe.model";
constexpr int64_t k_max_vocab_ids = int64_t{1} << 24;

// FAIRSEQ_LANGUAGE_CODES of transformers' models/m2m_100/tokenization_m2m_100.py, in its order.
const std::vector<std::string>& codes_of(const std::string& set) {
  static const std::vector<std::string> m2m100{
      "af", "am", "ar", "ast", "az", "ba", "be", "bg", "bn", "br",  "bs", "ca", "ceb", "cs", "cy",
      "da", "de", "el", "en",  "es", "et", "fa", "ff", "fi", "fr",  "fy", "ga", "gd",  "gl", "gu",
      "ha", "he", "hi", "hr",  "ht", "hu", "hy", "id", "ig", "ilo", "is", "it", "ja",  "jv", "ka",
      "kk", "km", "kn", "ko",  "lb", "lg", "ln", "lo", "lt", "lv",  "mg", "mk", "ml",  "mn", "mr",
      "ms", "my", "ne", "nl",  "no", "ns", "oc", "or", "pa", "pl",  "ps", "pt", "ro",  "ru", "sd",
      "si", "sk", "sl", "so",  "sq", "sr", "ss", "su", "sv", "sw",  "ta", "th", "tl",  "tn", "tr",
      "uk", "ur", "uz", "vi",  "wo", "xh", "yi", "yo", "zh", "zu"};
  static const std::vector<std::string> wmt21{"en", "ha", "is", "ja", "cs", "ru", "zh", "de"};
  static const std::vector<std::string> none;
  return set == "m2m100" ? m2m100 : set == "wmt21" ? wmt21 : none;
}

class M2M100Tokenizer final : public Tokenizer {
 public:
  explicit M2M100Tokenizer(const fs::path& dir)
      : spm_file_((dir / k_spm).string()), vocab_file_((dir / "vocab.json").string()) {
    detail::load_sentencepiece(spm_file_, sp_);
    read_vocab();
    const TokenizerConfig config = read_tokenizer_config(dir);
    const SpecContext ctx{(dir / "tokenizer_config.json").string()};
    spec_require_value(config.json, "sp_model_kwargs", nlohmann::json::object(),
                       SpecPlace{ctx, ""});
    const auto id_of = [&](std::string_view field, const char* fallback) {
      const std::string text = config.token(field).value_or(fallback);
      const auto it = ids_.find(text);
      if (it == ids_.end()) {
        throw Error(fmt::format("{}: the {} '{}' is not in {}", ctx.file, field,
                                printable_text(text), vocab_file_));
      }
      return it->second;
    };
    unk_ = id_of("unk_token", "<unk>");
    eos_ = id_of("eos_token", "</s>");
    bos_ = id_of("bos_token", "<s>");
    id_of("pad_token", "<pad>");
    for (const char* t : {"<s>", "<pad>", "</s>", "<unk>"})
      if (ids_.count(t)) specials_.push_back(t);
    const std::vector<std::string> codes = m2m100_language_codes(dir);
    for (size_t i = 0; i < codes.size(); ++i) {
      const std::string token = "__" + codes[i] + "__";
      const auto id = static_cast<int64_t>(pieces_.size() + i);
      language_ids_.emplace(token, id);
      language_tokens_.push_back(token);
      specials_.push_back(token);
    }
    const std::string source = config.text("src_lang").value_or("en");  // the class's default
    const auto it = language_ids_.find("__" + source + "__");
    if (it == language_ids_.end()) {
      throw Error(fmt::format("{}: src_lang '{}' is not one of the tokenizer's language codes",
                              ctx.file, printable_text(source)));
    }
    source_ = it->second;
    if (const auto m = config.json.find("num_madeup_words"); m != config.json.end()) {
      if (!m->is_number_unsigned() || m->get<int64_t>() > 1024)
        throw Error(
            fmt::format("{}: num_madeup_words: expected a count, got {}", ctx.file, m->dump()));
      madeup_ = m->get<int64_t>();
    }
  }

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    std::vector<TokenPiece> pieces;
    if (add_special) pieces.push_back({source_, label(source_), 0, 0, true});
    if (const auto whole = special_id(text)) {  // transformers splits a special token out
      pieces.push_back({*whole, label(*whole), 0, text.size()});
    } else {
      detail::refuse_special_text(text, specials_, spm_file_, "M2M100's sentencepiece.bpe.model",
                                  "give --ids");
      sentencepiece::ImmutableSentencePieceText spt;
      if (const auto status = sp_.Encode(text, spt.mutable_proto()); !status.ok()) {
        throw Error(fmt::format("{}: SentencePiece cannot encode the text: {}", spm_file_,
                                status.error_message()));
      }
      for (const auto& piece : spt.pieces()) {
        const auto it = ids_.find(piece.piece());
        const int64_t id = it == ids_.end() ? unk_ : it->second;  // _convert_token_to_id
        pieces.push_back({id, label(id), piece.begin(), piece.end()});
      }
    }
    if (add_special) pieces.push_back({eos_, label(eos_), text.size(), text.size(), true});
    return pieces;
  }

  std::optional<int64_t> unknown_id() const override { return unk_; }
  std::optional<int64_t> bos_id() const override { return bos_; }

  std::optional<std::string> token(int64_t id) const override {
    const auto n = static_cast<int64_t>(pieces_.size());
    if (id >= n && id < n + static_cast<int64_t>(language_tokens_.size()))
      return language_tokens_[size_t(id - n)];
    if (id < 0 || id >= n || pieces_[size_t(id)].empty()) return std::nullopt;
    return pieces_[size_t(id)];
  }

  std::string label(int64_t id) const override {
    const auto piece = token(id);
    if (!piece) return fmt::format("#{}", id);
    return detail::spm_piece_label(*piece);
  }

  // len(vocab.json) + the language tokens + num_madeup_words, as the class's vocab_size.
  int64_t vocab_size() const override {
    return static_cast<int64_t>(pieces_.size() + language_tokens_.size()) + madeup_;
  }

  std::string description() const override {
    return fmt::format("M2M100 SentencePiece ({} + vocab.json, {}, {} languages)", k_spm,
                       count_of(vocab_size(), "token"), language_tokens_.size());
  }

 private:
  // vocab.json: {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "▁the": 4, …}; every id once, none
  // missing (the language tokens are numbered after its size).
  void read_vocab() {
    const nlohmann::json j = read_json_file(vocab_file_);
    if (!j.is_object() || j.empty()) {
      throw Error(fmt::format("{}: expected an object of piece → id", vocab_file_));
    }
    pieces_.assign(j.size(), "");
    std::vector<bool> taken(j.size());
    for (const auto& [piece, id] : j.items()) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
          id.get<int64_t>() >= static_cast<int64_t>(j.size()) ||
          id.get<int64_t>() >= k_max_vocab_ids) {
        throw Error(fmt::format(
            "{}: \"{}\": expected an id in [0, {}) (the language tokens are numbered after the "
            "file's {} entries), got {}",
            vocab_file_, printable_text(piece), j.size(), j.size(), id.dump()));
      }
      const auto n = static_cast<size_t>(id.get<int64_t>());
      if (taken[n]) {
        throw Error(fmt::format("{}: id {} is given to both \"{}\" and \"{}\"", vocab_file_, n,
                                printable_text(pieces_[n]), printable_text(piece)));
      }
      taken[n] = true;
      pieces_[n] = piece;
      ids_.emplace(piece, static_cast<int64_t>(n));
    }
  }

  std::optional<int64_t> special_id(std::string_view text) const {
    if (std::find(specials_.begin(), specials_.end(), text) == specials_.end()) return std::nullopt;
    if (const auto it = language_ids_.find(text); it != language_ids_.end()) return it->second;
    return ids_.find(text)->second;
  }

  std::string spm_file_, vocab_file_;
  sentencepiece::SentencePieceProcessor sp_;
  std::vector<std::string> pieces_;  // by id
  std::map<std::string, int64_t, std::less<>> ids_, language_ids_;
  std::vector<std::string> language_tokens_, specials_;
  int64_t unk_ = 0, eos_ = 0, bos_ = 0, source_ = 0, madeup_ = 8;  // the class's 8 made-up words
};

}  // namespace

bool is_m2m100_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / k_spm, ec) || !fs::exists(dir / "vocab.json", ec) ||
      !fs::exists(dir / "tokenizer_config.json", ec))
    return false;
  return read_tokenizer_config(dir).text("tokenizer_class").value_or("") == "M2M100Tokenizer";
}

std::vector<std::string> m2m100_language_codes(const fs::path& dir) {
  const TokenizerConfig config = read_tokenizer_config(dir);
  const std::string set = config.text("language_codes").value_or("m2m100");
  const auto& codes = codes_of(set);
  if (codes.empty()) {
    throw Error(
        fmt::format("{}: language_codes '{}': expected m2m100 or wmt21 (M2M100Tokenizer's "
                    "FAIRSEQ_LANGUAGE_CODES)",
                    config.path.string(), printable_text(set)));
  }
  return codes;
}

std::unique_ptr<Tokenizer> make_m2m100_tokenizer(const fs::path& dir) {
  return std::make_unique<M2M100Tokenizer>(dir);
}

}  // namespace attnviz
