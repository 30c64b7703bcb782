// The Unigram model of a tokenizer.json (SentencePiece's unigram language model, as Hugging Face's
// tokenizers runs it: models/unigram/model.rs, encode_optimized and tokenize).
//
// A pre-token is split into the vocabulary pieces whose scores (log probabilities) sum highest:
// Viterbi over the character positions. A character no piece of its own length starts with gets
// an unknown-piece candidate scored min(score) − 10; consecutive unknown pieces are fused into
// one; with byte_fallback a fused unknown becomes the <0xXX> pieces of its bytes (when the
// vocabulary has them all).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

namespace {

// model.rs: `static K_UNK_PENALTY: f64 = 10.0;` — an unknown character costs 10 nats more than
// the rarest piece.
constexpr double k_unk_penalty = 10.0;

// A byte trie of the pieces, for the pieces that start at a position (tokenizers' Trie).
class PieceTrie {
 public:
  void add(std::string_view piece, int64_t id) {
    uint32_t node = 0;
    for (const char c : piece) {
      const uint64_t key = edge_key(node, c);
      auto it = children_.find(key);
      if (it == children_.end()) {
        it = children_.emplace(key, static_cast<uint32_t>(ids_.size())).first;
        ids_.push_back(-1);
      }
      node = it->second;
    }
    ids_[node] = id;  // a piece listed twice takes its later id, as token_to_ids.insert does
  }

  // Calls f(length, id) for each piece that is a prefix of text, shortest first (the order of
  // common_prefix_search, which decides ties between equal scores).
  template <typename F>
  void prefixes(std::string_view text, F&& f) const {
    uint32_t node = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const auto it = children_.find(edge_key(node, text[i]));
      if (it == children_.end()) return;
      node = it->second;
      if (ids_[node] >= 0) f(i + 1, ids_[node]);
    }
  }

 private:
  static uint64_t edge_key(uint32_t node, char c) {
    return (uint64_t{node} << 8) | static_cast<unsigned char>(c);
  }
  std::unordered_map<uint64_t, uint32_t> children_;  // (node, byte) → child
  std::vector<int64_t> ids_{-1};                     // node → id of the piece ending there, or -1
};

struct Piece {
  std::string token;
  double score = 0;
};

class UnigramModel final : public TokenModel {
 public:
  UnigramModel(std::vector<Piece> vocab, std::optional<int64_t> unk_id, bool byte_fallback,
               const SpecPlace& place)
      : vocab_(std::move(vocab)),
        unk_id_(unk_id),
        byte_fallback_(byte_fallback),
        file_(place.ctx.file),
        where_(place.where) {
    for (size_t id = 0; id < vocab_.size(); ++id) {
      ids_[vocab_[id].token] = static_cast<int64_t>(id);
      trie_.add(vocab_[id].token, static_cast<int64_t>(id));
      min_score_ = std::min(min_score_, vocab_[id].score);
    }
  }

  void tokenize(const NormalizedText& word, std::vector<TokenPiece>& out) const override {
    const std::string& text = word.text;
    for (const auto& [begin, end, known_id] : best_segmentation(text)) {
      const size_t input_begin = word.origin[begin];
      const size_t input_end = word.origin[end];
      // A piece of the vocabulary keeps the id the trie found (the one token_to_ids gives, as
      // tokenize() looks it up); a fused unknown run is looked up as a whole.
      int64_t id = known_id;
      const std::string_view piece = std::string_view(text).substr(begin, end - begin);
      if (id < 0) {
        if (const auto it = ids_.find(std::string(piece)); it != ids_.end()) id = it->second;
      }
      if (id >= 0) {
        out.push_back({id, vocab_[static_cast<size_t>(id)].token, input_begin, input_end});
        continue;
      }
      // Each byte piece spans the whole run, as in tokenize().
      if (byte_fallback_ && append_byte_pieces(piece, input_begin, input_end, out)) continue;
      out.push_back(
          {*unk_id_, vocab_[static_cast<size_t>(*unk_id_)].token, input_begin, input_end});
    }
  }

  std::optional<int64_t> token_to_id(std::string_view token) const override {
    const auto it = ids_.find(std::string(token));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }

  std::optional<std::string> id_to_token(int64_t id) const override {
    if (id < 0 || id >= vocab_size()) return std::nullopt;
    return vocab_[static_cast<size_t>(id)].token;
  }

  int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.size()); }
  std::optional<int64_t> unknown_id() const override { return unk_id_; }

  std::string description() const override {
    return fmt::format("Unigram, {}{}", count_of(vocab_size(), "token"),
                       byte_fallback_ ? ", byte fallback" : "");
  }

 private:
  // A piece of the best path: bytes [begin, end) of the text, and its id (-1: a run of unknowns).
  struct Segment {
    size_t begin = 0;
    size_t end = 0;
    int64_t id = -1;
  };

  // The best path's pieces, consecutive unknowns fused.
  std::vector<Segment> best_segmentation(const std::string& text) const {
    // best[e]: the best path over text[0, e): its score, and its last piece's start and id.
    struct Node {
      double score = 0;
      std::optional<size_t> start;
      int64_t id = -1;
    };
    std::vector<Node> best(text.size() + 1);
    const double unk_score = min_score_ - k_unk_penalty;
    // A candidate replaces the best path ending at `end` only when strictly better, so among
    // equal scores the first one tried stays (shorter pieces first, the unknown last).
    const auto offer = [&](size_t start, size_t end, double score, int64_t id) {
      Node& node = best[end];
      const double candidate = best[start].score + score;
      if (!node.start || candidate > node.score) node = {candidate, start, id};
    };
    for (size_t start = 0; start < text.size();) {
      const size_t char_length = utf8_length(text, start);
      bool has_single_char_piece = false;
      trie_.prefixes(std::string_view(text).substr(start), [&](size_t length, int64_t id) {
        offer(start, start + length, vocab_[static_cast<size_t>(id)].score, id);
        has_single_char_piece = has_single_char_piece || length == char_length;
      });
      if (!has_single_char_piece) {
        if (!unk_id_) {
          throw Error(
              fmt::format("{}: {}: the character '{}' has no piece and the model has no unk_id",
                          file_, where_, printable_text(text.substr(start, char_length))));
        }
        offer(start, start + char_length, unk_score, *unk_id_);
      }
      start += char_length;
    }
    // Back from the end; runs of unknown pieces become one range.
    std::vector<Segment> pieces;
    bool last_was_unknown = false;
    for (size_t end = text.size(); end > 0;) {
      const Node& node = best[end];
      const bool unknown = node.id == unk_id_;
      if (unknown && last_was_unknown) {
        pieces.back().begin = *node.start;
      } else {
        pieces.push_back({*node.start, end, unknown ? -1 : node.id});
      }
      last_was_unknown = unknown;
      end = *node.start;
    }
    std::reverse(pieces.begin(), pieces.end());
    return pieces;
  }

  // The <0xXX> pieces of each byte, all spanning [input_begin, input_end); false (nothing
  // appended) when the vocabulary lacks one of them, and the run becomes the unknown piece.
  bool append_byte_pieces(std::string_view bytes, size_t input_begin, size_t input_end,
                          std::vector<TokenPiece>& out) const {
    std::vector<TokenPiece> pieces;
    for (const char c : bytes) {
      std::string token = fmt::format("<0x{:02X}>", static_cast<unsigned char>(c));
      const auto it = ids_.find(token);
      if (it == ids_.end()) return false;
      pieces.push_back({it->second, std::move(token), input_begin, input_end});
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
    return true;
  }

  // Bytes of the UTF-8 character starting at text[i] (the text is valid UTF-8).
  static size_t utf8_length(const std::string& text, size_t i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return std::min(n, text.size() - i);
  }

  std::vector<Piece> vocab_;
  std::unordered_map<std::string, int64_t> ids_;
  PieceTrie trie_;
  double min_score_ = std::numeric_limits<double>::infinity();
  std::optional<int64_t> unk_id_;
  bool byte_fallback_ = false;
  std::string file_;
  std::string where_;
};

// "vocab": [[piece, score], …] in id order.
std::vector<Piece> read_vocab(const nlohmann::json& spec, const SpecPlace& place) {
  const nlohmann::json& list = spec_required(spec, "vocab", place);
  if (!list.is_array()) place.at("vocab").fail("expected a list of [piece, score] pairs");
  std::vector<Piece> vocab;
  vocab.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
      place.at("vocab").at(i).fail(
          fmt::format("expected [piece, score] (a string and a number), got {}",
                      printable_text(entry.dump().substr(0, 80))));
    }
    const double score = entry[1].get<double>();
    if (!std::isfinite(score)) place.at("vocab").at(i).fail("the score is not a finite number");
    vocab.push_back({entry[0].get<std::string>(), score});
  }
  return vocab;
}

}  // namespace

std::unique_ptr<TokenModel> make_unigram_model(const nlohmann::json& spec, const SpecPlace& place) {
  // The fields tokenizers serialises (serialization.rs); anything else is an option attnviz
  // cannot honour, so it is named rather than ignored.
  for (const auto& [key, value] : spec.items()) {
    if (key != "type" && key != "vocab" && key != "unk_id" && key != "byte_fallback" &&
        !value.is_null()) {
      place.at(key).fail(
          "is not a Unigram option attnviz implements (vocab, unk_id, byte_fallback)");
    }
  }
  std::vector<Piece> vocab = read_vocab(spec, place);
  std::optional<int64_t> unk_id;
  if (spec.contains("unk_id") && !spec["unk_id"].is_null()) {
    unk_id = spec_int(spec, "unk_id", 0, place);
    if (*unk_id < 0 || *unk_id >= static_cast<int64_t>(vocab.size())) {
      place.at("unk_id").fail(fmt::format("{} is not an id of the vocabulary ({})", *unk_id,
                                          count_of(static_cast<long long>(vocab.size()), "piece")));
    }
  }
  const bool byte_fallback = spec_bool(spec, "byte_fallback", false, place);
  return std::make_unique<UnigramModel>(std::move(vocab), unk_id, byte_fallback, place);
}

}  // namespace attnviz
