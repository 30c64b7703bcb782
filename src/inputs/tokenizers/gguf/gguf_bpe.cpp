// llama.cpp's llm_tokenizer_bpe_session: the pre-tokenizer regex of tokenizer.ggml.pre splits the
// text into words (unmatched stretches are words too), each byte-level encoded and merged by rank,
// lowest first, leftmost among equal ranks.
#include <fmt/format.h>

#include <queue>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "gguf_sessions.hpp"

namespace attnviz {
namespace {

// The regexes of llama.cpp's llm_tokenizer_bpe for these pre types (Llama 3's and Qwen2's with the
// case-insensitive contractions spelled out, as llama.cpp adapts them), applied one after the
// other: each splits every piece the previous ones left into its matches and the stretches between
// them.
std::vector<const UnicodeRegex*> pre_regexes(GgufPre pre) {
  static const UnicodeRegex gpt2(
      "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
      "llama.cpp's GPT-2 pre-tokenizer");
  static const UnicodeRegex llama3(
      "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{"
      "N}{1,3}| "
      "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
      "llama.cpp's Llama 3 pre-tokenizer");
  static const UnicodeRegex qwen2(
      "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{"
      "N}| "
      "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
      "llama.cpp's Qwen2 pre-tokenizer");
  static const UnicodeRegex punctuation("[\\p{P}\\$\\+<=>\\^~\\|]+",
                                        "llama.cpp's default pre-tokenizer");
  static const UnicodeRegex numbers("\\p{N}+", "llama.cpp's default pre-tokenizer");
  static const UnicodeRegex three_digits("[0-9][0-9][0-9]", "llama.cpp's default pre-tokenizer");
  switch (pre) {
    case GgufPre::llama_default:
      return {&punctuation, &gpt2, &numbers, &three_digits};
    case GgufPre::llama3:
      return {&llama3};
    case GgufPre::qwen2:
      return {&qwen2};
    case GgufPre::gpt2:
      break;
  }
  return {&gpt2};
}

struct Bigram {
  int left = 0;
  int right = 0;
  int32_t rank = 0;
  std::string text;
};

struct Lower {  // llama.cpp's comparator: higher rank, then larger left, is lower priority
  bool operator()(const Bigram& l, const Bigram& r) const {
    return l.rank > r.rank || (l.rank == r.rank && l.left > r.left);
  }
};

class BpeWord {
 public:
  BpeWord(const GgufVocab& vocab, const std::string& word) : vocab_(vocab), word_(word) {}

  std::vector<GgufSymbol> merge() {
    if (vocab_.ignore_merges && vocab_.find(word_) >= 0) return {{-1, -1, 0, word_.size()}};
    symbols_ = gguf_symbols(word_);
    for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) add(i - 1, i);
    while (!queue_.empty()) {
      const Bigram b = queue_.top();
      queue_.pop();
      const GgufSymbol& left = symbols_[static_cast<size_t>(b.left)];
      const GgufSymbol& right = symbols_[static_cast<size_t>(b.right)];
      if (left.n == 0 || right.n == 0 || text(left) + text(right) != b.text) continue;  // outdated
      gguf_merge(symbols_, b.left, b.right);
      add(left.prev, b.left);
      add(b.left, left.next);
    }
    return symbols_;
  }

  std::string text(const GgufSymbol& s) const { return word_.substr(s.begin, s.n); }

 private:
  void add(int left, int right) {
    if (left < 0 || right < 0) return;
    std::string l = text(symbols_[static_cast<size_t>(left)]);
    std::string r = text(symbols_[static_cast<size_t>(right)]);
    const auto it = vocab_.merge_ranks.find(std::pair{l, r});
    if (it == vocab_.merge_ranks.end()) return;
    queue_.push({left, right, it->second, l + r});
  }

  const GgufVocab& vocab_;
  const std::string& word_;
  std::vector<GgufSymbol> symbols_;
  std::priority_queue<Bigram, std::vector<Bigram>, Lower> queue_;
};

// One pre-token: input bytes [begin, end) of `text`, encoded one character per byte.
void tokenize_word(const GgufVocab& vocab, std::string_view text, size_t begin, size_t end,
                   size_t base, std::vector<TokenPiece>& out) {
  std::string word;
  std::vector<size_t> origin;  // encoded byte → input byte
  for (size_t i = begin; i < end; ++i) {
    const size_t before = word.size();
    append_utf8(word, byte_to_unicode(static_cast<uint8_t>(text[i])));
    origin.insert(origin.end(), word.size() - before, base + i);
  }
  origin.push_back(base + end);
  BpeWord bpe(vocab, word);
  const std::vector<GgufSymbol> symbols = bpe.merge();
  for (const GgufSymbol& s : symbols) {
    if (s.n == 0) continue;
    const std::string piece = bpe.text(s);
    int32_t id = vocab.find(piece);
    if (id <
        0) {  // llama.cpp looks the piece's bytes up one by one and drops those that are no token
      throw Error(fmt::format(
          "{}: tokenizer.ggml.merges: the merges form '{}', which is not in tokenizer.ggml.tokens "
          "(llama.cpp would drop part of it)",
          vocab.file, printable_text(piece)));
    }
    out.push_back(
        {id, vocab.tokens[static_cast<size_t>(id)], origin[s.begin], origin[s.begin + s.n], false});
  }
}

}  // namespace

void gguf_bpe_tokenize(const GgufVocab& vocab, std::string_view text, size_t base,
                       std::vector<TokenPiece>& out) {
  std::vector<std::pair<size_t, size_t>> words = {{0, text.size()}};
  for (const UnicodeRegex* regex : pre_regexes(vocab.pre)) {
    std::vector<std::pair<size_t, size_t>> next;
    for (const auto& [from, to] : words) {
      size_t at = from;
      for (const auto& [begin, end] : regex->find_all(text.substr(from, to - from))) {
        if (from + begin > at)
          next.emplace_back(at, from + begin);  // an unmatched stretch is a word
        next.emplace_back(from + begin, from + end);
        at = from + end;
      }
      if (at < to) next.emplace_back(at, to);
    }
    words = std::move(next);
  }
  for (const auto& [begin, end] : words) tokenize_word(vocab, text, begin, end, base, out);
}

}  // namespace attnviz
