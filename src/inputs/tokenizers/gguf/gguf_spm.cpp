// llama.cpp's llm_tokenizer_spm_session: characters merged pairwise, the pair whose merged text is
// the token of highest score first (leftmost among equal scores); leftovers become byte tokens.
// Also the linked symbols both sessions merge.
#include <fmt/format.h>

#include <algorithm>
#include <queue>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "gguf_sessions.hpp"

namespace attnviz {
namespace {

struct Bigram {
  int left = 0;
  int right = 0;
  float score = 0;
  size_t size = 0;
};

struct Lower {  // llama.cpp's comparator: lower score, then larger left, is lower priority
  bool operator()(const Bigram& l, const Bigram& r) const {
    return l.score < r.score || (l.score == r.score && l.left > r.left);
  }
};

class SpmSession {
 public:
  SpmSession(const GgufVocab& vocab, std::string_view text) : vocab_(vocab), text_(text) {}

  std::vector<GgufSymbol> merge() {
    symbols_ = gguf_symbols(text_);
    for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) try_add(i - 1, i);
    while (!queue_.empty()) {
      const Bigram b = queue_.top();
      queue_.pop();
      const GgufSymbol& left = symbols_[static_cast<size_t>(b.left)];
      const GgufSymbol& right = symbols_[static_cast<size_t>(b.right)];
      if (left.n == 0 || right.n == 0 || left.n + right.n != b.size) continue;  // outdated
      gguf_merge(symbols_, b.left, b.right);
      try_add(left.prev, b.left);
      try_add(b.left, left.next);
    }
    return symbols_;
  }

 private:
  void try_add(int left, int right) {
    if (left < 0 || right < 0) return;
    const GgufSymbol& l = symbols_[static_cast<size_t>(left)];
    const size_t size = l.n + symbols_[static_cast<size_t>(right)].n;
    const int32_t id = vocab_.find(text_.substr(l.begin, size));
    if (id < 0) return;
    queue_.push({left, right, vocab_.scores[static_cast<size_t>(id)], size});
  }

  const GgufVocab& vocab_;
  std::string_view text_;
  std::vector<GgufSymbol> symbols_;
  std::priority_queue<Bigram, std::vector<Bigram>, Lower> queue_;
};

// llama_vocab::byte_to_token for SPM: "<0xXX>", else the byte itself as a token.
int32_t byte_token(const GgufVocab& vocab, unsigned char byte) {
  const int32_t id = vocab.find(fmt::format("<0x{:02X}>", byte));
  if (id >= 0) return id;
  const int32_t raw = vocab.find(std::string(1, static_cast<char>(byte)));
  if (raw >= 0) return raw;
  throw Error(fmt::format(
      "{}: tokenizer.ggml.tokens: no token for byte 0x{:02X} (neither <0x{:02X}> nor the byte "
      "itself), which the text needs (llama.cpp fails here too)",
      vocab.file, byte, byte));
}

}  // namespace

std::vector<GgufSymbol> gguf_symbols(std::string_view text) {
  static constexpr size_t k_length[] = {1, 1, 1, 1, 1, 1, 1, 1,
                                        1, 1, 1, 1, 2, 2, 3, 4};  // by the high nibble
  std::vector<GgufSymbol> symbols;
  for (size_t at = 0; at < text.size();) {
    const size_t n =
        std::min(k_length[static_cast<unsigned char>(text[at]) >> 4], text.size() - at);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, at + n == text.size() ? -1 : index + 1, at, n});
    at += n;
  }
  return symbols;
}

void gguf_merge(std::vector<GgufSymbol>& symbols, int left, int right) {
  GgufSymbol& l = symbols[static_cast<size_t>(left)];
  GgufSymbol& r = symbols[static_cast<size_t>(right)];
  l.n += r.n;
  r.n = 0;
  l.next = r.next;
  if (r.next >= 0) symbols[static_cast<size_t>(r.next)].prev = left;
}

void gguf_spm_tokenize(const GgufVocab& vocab, std::string_view text,
                       const std::vector<size_t>& origin, std::vector<TokenPiece>& out) {
  if (text.empty()) return;
  const std::vector<GgufSymbol> symbols = SpmSession(vocab, text).merge();
  for (int i = 0; i != -1; i = symbols[static_cast<size_t>(i)].next) {
    const GgufSymbol& s = symbols[static_cast<size_t>(i)];
    const int32_t id = vocab.find(text.substr(s.begin, s.n));
    if (id >= 0) {
      out.push_back({id, vocab.tokens[static_cast<size_t>(id)], origin[s.begin],
                     origin[s.begin + s.n], false});
      continue;
    }
    for (size_t b = s.begin; b < s.begin + s.n; ++b) {
      const int32_t byte_id = byte_token(vocab, static_cast<unsigned char>(text[b]));
      out.push_back(
          {byte_id, vocab.tokens[static_cast<size_t>(byte_id)], origin[b], origin[b + 1], false});
    }
  }
}

}  // namespace attnviz
