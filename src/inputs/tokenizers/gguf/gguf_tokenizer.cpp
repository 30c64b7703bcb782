// GgufTokenizer: llama.cpp's llama_vocab::impl::tokenize — special tokens split out of the text
// first (tokenizer_st_partition), then the BPE, SPM or WPM session on the text between them, BOS /
// EOS around the whole.
#include "attnviz/inputs/tokenizers/gguf/gguf_tokenizer.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "gguf_sessions.hpp"
#include "gguf_vocab.hpp"

namespace attnviz {
namespace {

// A stretch of the input: text still to tokenize (token < 0) or a special token found in it.
struct Fragment {
  int32_t token = -1;
  size_t begin = 0;
  size_t end = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

class GgufTokenizer final : public Tokenizer {
 public:
  explicit GgufTokenizer(GgufVocab vocab) : v_(std::move(vocab)) {}

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    if (const auto bad = find_invalid_utf8(text))
      throw Error(fmt::format("text: invalid UTF-8 at byte {}", *bad));
    std::vector<TokenPiece> out;
    if (v_.is_wordpiece()) return encode_wordpiece(text, add_special);
    if (add_special && v_.add_bos) out.push_back(added(v_.bos, "BOS", "add_bos_token", 0));
    bool prev_special =
        true;  // SPM: a space prefix for the first text and after each special token
    for (const Fragment& f : partition(text)) {
      if (f.token >= 0) {
        out.push_back({f.token, v_.tokens[static_cast<size_t>(f.token)], f.begin, f.end, false});
        prev_special = true;
      } else if (v_.is_byte_level()) {
        gguf_bpe_tokenize(v_, text.substr(f.begin, f.end - f.begin), f.begin, out);
      } else {
        spm_fragment(text, f, v_.add_space_prefix && prev_special, out);
        prev_special = false;
      }
    }
    if (add_special && v_.add_eos)
      out.push_back(added(v_.eos, "EOS", "add_eos_token", text.size()));
    for (TokenPiece& p : out) p.label = label(p.id);
    return out;
  }

  std::optional<int64_t> unknown_id() const override {
    return v_.unk >= 0 ? std::optional<int64_t>(v_.unk) : std::nullopt;
  }

  std::optional<int64_t> bos_id() const override {
    return v_.bos >= 0 ? std::optional<int64_t>(v_.bos) : std::nullopt;
  }

  std::string label(int64_t id) const override {
    if (id < 0 || id >= vocab_size()) return fmt::format("#{}", id);
    const auto i = static_cast<size_t>(id);
    const GgufTokenType t = v_.types[i];
    if (t == GgufTokenType::control || t == GgufTokenType::user_defined ||
        t == GgufTokenType::unknown) {
      return printable_text(v_.tokens[i]);
    }
    return readable_label(v_.tokens[i],
                          v_.is_byte_level() ? LabelStyle::byte_level : LabelStyle::metaspace);
  }

  std::optional<std::string> token(int64_t id) const override {
    if (id < 0 || id >= vocab_size()) return std::nullopt;
    return v_.tokens[static_cast<size_t>(id)];
  }

  int64_t vocab_size() const override { return static_cast<int64_t>(v_.tokens.size()); }

  std::string description() const override {
    if (v_.is_byte_level()) {
      return fmt::format(
          "GGUF tokenizer (gpt2: byte-level BPE, pre-tokenizer {}, {} tokens, {} merges)",
          v_.pre_name, v_.tokens.size(), v_.merge_count);
    }
    if (v_.is_wordpiece()) {
      return fmt::format("GGUF tokenizer (bert: WordPiece-style longest match, {} tokens)",
                         v_.tokens.size());
    }
    return fmt::format("GGUF tokenizer (llama: SentencePiece-style BPE by score, {} tokens)",
                       v_.tokens.size());
  }

 private:
  // llama.cpp's WPM case: BOS and the separator token around the text whenever special tokens
  // are asked for (tokenizer.ggml.add_bos_token / add_eos_token are not consulted).
  std::vector<TokenPiece> encode_wordpiece(std::string_view text, bool add_special) const {
    std::vector<TokenPiece> out;
    if (add_special)
      out.push_back(added(v_.bos, "BOS", "bos_token_id", 0, "a bert vocabulary adds it"));
    for (const Fragment& f : partition(text)) {
      if (f.token >= 0) {
        out.push_back({f.token, v_.tokens[static_cast<size_t>(f.token)], f.begin, f.end, false});
      } else {
        gguf_wpm_tokenize(v_, text.substr(f.begin, f.end - f.begin), f.begin, out);
      }
    }
    if (add_special)
      out.push_back(added(v_.sep, "separator", "seperator_token_id", text.size(),
                          "a bert vocabulary adds it"));
    for (TokenPiece& p : out) p.label = label(p.id);
    return out;
  }

  TokenPiece added(int32_t id, const char* what, const char* flag, size_t at,
                   const char* why = nullptr) const {
    if (id < 0 && why) {
      throw Error(fmt::format(
          "{}: tokenizer.ggml.{}: the file names no {} token (or one outside the vocabulary), "
          "and {}",
          v_.file, flag, what, why));
    }
    if (id < 0) {
      throw Error(fmt::format("{}: tokenizer.ggml.{} is true but the file names no {} token",
                              v_.file, flag, what));
    }
    return {id, v_.tokens[static_cast<size_t>(id)], at, at, true};
  }

  // tokenizer_st_partition: each special token, longest first, split out of every text fragment.
  std::vector<Fragment> partition(std::string_view text) const {
    std::vector<Fragment> fragments;
    if (!text.empty()) fragments.push_back({-1, 0, text.size()});
    for (const int32_t id : v_.specials) {
      const std::string& token = v_.tokens[static_cast<size_t>(id)];
      const bool rstrip =
          v_.rstrip_specials && token != "<unk>" && token != "<s>" && token != "<|endoftext|>";
      std::vector<Fragment> next;
      for (const Fragment& f : fragments) {
        if (f.token >= 0) {
          next.push_back(f);
          continue;
        }
        split_fragment(text, f, id, token, rstrip, next);
      }
      fragments = std::move(next);
    }
    return fragments;
  }

  static void split_fragment(std::string_view text, Fragment f, int32_t id,
                             const std::string& token, bool rstrip, std::vector<Fragment>& out) {
    while (f.begin < f.end) {
      const size_t match = text.substr(0, f.end).find(token, f.begin);
      if (match == std::string_view::npos) break;
      if (match > f.begin) out.push_back({-1, f.begin, match});
      out.push_back({id, match, match + token.size()});
      f.begin = match + token.size();
      if (rstrip) {
        while (f.begin < f.end && is_space(text[f.begin])) ++f.begin;
      }
    }
    if (f.begin < f.end) out.push_back(f);
  }

  // SPM: spaces become "▁" (each byte of it from the space), with "▁" in front when asked.
  void spm_fragment(std::string_view text, const Fragment& f, bool prefix,
                    std::vector<TokenPiece>& out) const {
    static constexpr std::string_view k_meta = "\xe2\x96\x81";
    std::string escaped;
    std::vector<size_t> origin;
    if (prefix) escaped += k_meta, origin.insert(origin.end(), 3, f.begin);
    for (size_t i = f.begin; i < f.end; ++i) {
      if (text[i] == ' ') {
        escaped += k_meta, origin.insert(origin.end(), 3, i);
      } else {
        escaped += text[i], origin.push_back(i);
      }
    }
    origin.push_back(f.end);
    gguf_spm_tokenize(v_, escaped, origin, out);
  }

  GgufVocab v_;
};

}  // namespace

std::unique_ptr<Tokenizer> read_gguf_tokenizer(const GgufMetadata& metadata,
                                               const std::string& file) {
  return std::make_unique<GgufTokenizer>(read_gguf_vocab(metadata, file));
}

std::unique_ptr<Tokenizer> make_gguf_tokenizer(const std::filesystem::path& path) {
  const GgufFile gguf = GgufFile::open(path);
  return read_gguf_tokenizer(gguf.metadata(), path.string());
}

}  // namespace attnviz
