// Added tokens, then normalizer → pre-tokenizer → model, then the post-processor, as Hugging Face
// tokenizers' TokenizerImpl::encode runs them.
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <unordered_map>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"

namespace attnviz {

namespace {

// A stretch of the input: an added token (token != nullptr) or text for the pipeline.
struct Segment {
  NormalizedText text;
  const AddedToken* token = nullptr;
};

size_t utf8_length(char32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

bool is_word_char(char32_t cp) {
  if (cp == '_') return true;
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ||
         (category >= UTF8PROC_CATEGORY_ND && category <= UTF8PROC_CATEGORY_NO);
}

bool is_space(char32_t cp) {
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cp == 0x85 ||
         category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

// The code point that ends just before byte `at` / starts at byte `at` of valid UTF-8 text.
char32_t char_before(std::string_view text, size_t at) {
  size_t begin = at - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
  return decode_utf8(text.substr(begin, at - begin)).front();
}
char32_t char_at(std::string_view text, size_t at) {
  size_t end = at + 1;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  return decode_utf8(text.substr(at, end - at)).front();
}

// Added tokens matched leftmost-longest, as tokenizers' AddedVocabulary does with Aho-Corasick:
// at each byte the longest token that starts there; one failing single_word is skipped whole.
class AddedMatcher {
 public:
  explicit AddedMatcher(std::vector<std::pair<std::string, const AddedToken*>> patterns) {
    std::sort(patterns.begin(), patterns.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    for (auto& [content, token] : patterns) {
      if (content.empty()) continue;
      by_first_byte_[static_cast<unsigned char>(content[0])].emplace_back(std::move(content),
                                                                          token);
    }
  }
  bool empty() const { return by_first_byte_.empty(); }

  // Splits `text` into segments: matched tokens (with their lstrip/rstrip white space) and the
  // text between them.
  std::vector<Segment> split(const NormalizedText& text) const {
    std::vector<Segment> out;
    const std::string_view s = text.text;
    size_t plain_begin = 0;
    for (size_t at = 0; at < s.size();) {
      const auto* match = match_at(s, at);
      if (match == nullptr) {
        ++at;
        continue;
      }
      size_t begin = at;
      size_t end = at + match->first.size();
      if (match->second->single_word && ((at > 0 && is_word_char(char_before(s, at))) ||
                                         (end < s.size() && is_word_char(char_at(s, end))))) {
        // A single_word token inside a word is no match, and, as tokenizers' non-overlapping
        // Aho-Corasick search goes on after it, neither is a token overlapping it.
        at = end;
        continue;
      }
      if (match->second->lstrip) begin = strip_left(s, at, plain_begin);
      if (match->second->rstrip) end = strip_right(s, end);
      if (begin > plain_begin) out.push_back({text.slice(plain_begin, begin), nullptr});
      out.push_back({text.slice(begin, end), match->second});
      plain_begin = at = end;
    }
    if (plain_begin < s.size() || out.empty())
      out.push_back({text.slice(plain_begin, s.size()), nullptr});
    return out;
  }

 private:
  const std::pair<std::string, const AddedToken*>* match_at(std::string_view s, size_t at) const {
    const auto it = by_first_byte_.find(static_cast<unsigned char>(s[at]));
    if (it == by_first_byte_.end()) return nullptr;
    for (const auto& candidate : it->second) {  // longest first
      const std::string& content = candidate.first;
      if (s.compare(at, content.size(), content) != 0) continue;
      return &candidate;
    }
    return nullptr;
  }

  static size_t strip_left(std::string_view s, size_t at, size_t floor) {
    while (at > floor) {
      const char32_t cp = char_before(s, at);
      if (!is_space(cp)) break;
      at -= utf8_length(cp);
    }
    return at;
  }
  static size_t strip_right(std::string_view s, size_t at) {
    while (at < s.size()) {
      const char32_t cp = char_at(s, at);
      if (!is_space(cp)) break;
      at += utf8_length(cp);
    }
    return at;
  }

  std::unordered_map<unsigned char, std::vector<std::pair<std::string, const AddedToken*>>>
      by_first_byte_;
};

class PipelineTokenizer final : public Tokenizer {
 public:
  explicit PipelineTokenizer(PipelineParts parts) : parts_(std::move(parts)) {
    if (!parts_.model) throw Error(fmt::format("{}: no model", parts_.source));
    std::vector<std::pair<std::string, const AddedToken*>> raw, normalized;
    for (const AddedToken& token : parts_.added_tokens) {
      if (token.normalized && parts_.normalizer) {
        std::string content =
            parts_.normalizer->normalize(NormalizedText::of_input(token.content)).text;
        if (content.empty()) {
          // tokenizers would then match it between every two characters of the text.
          throw Error(fmt::format(
              "{}: the added token '{}' (id {}) is normalized to nothing; attnviz does not "
              "implement matching an empty token",
              parts_.source, printable_text(token.content), token.id));
        }
        normalized.emplace_back(std::move(content), &token);
      } else {
        raw.emplace_back(token.content, &token);
      }
      if (token.id >= 0) added_by_id_[token.id] = &token;
      max_id_ = std::max(max_id_, token.id);
    }
    raw_matcher_ = std::make_unique<AddedMatcher>(std::move(raw));
    normalized_matcher_ = std::make_unique<AddedMatcher>(std::move(normalized));
  }

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    if (const auto bad = find_invalid_utf8(text))
      throw Error(fmt::format("text: invalid UTF-8 at byte {}", *bad));
    std::vector<TokenPiece> pieces;
    for (const Segment& outer : raw_matcher_->split(NormalizedText::of_input(text))) {
      if (outer.token != nullptr) {
        pieces.push_back(added_piece(*outer.token, outer.text));
        continue;
      }
      if (outer.text.text.empty()) continue;
      NormalizedText normalized =
          parts_.normalizer ? parts_.normalizer->normalize(outer.text) : outer.text;
      for (const Segment& inner : normalized_matcher_->split(normalized)) {
        if (inner.token != nullptr) {
          pieces.push_back(added_piece(*inner.token, inner.text));
        } else if (!inner.text.text.empty()) {
          tokenize_words(inner.text, pieces);
        }
      }
    }
    if (add_special && parts_.post_processor)
      pieces = parts_.post_processor->process(std::move(pieces), text.size());
    return pieces;
  }

  std::string label(int64_t id) const override {
    if (const auto it = added_by_id_.find(id); it != added_by_id_.end())
      return printable_text(it->second->content);
    if (const auto token = parts_.model->id_to_token(id))
      return readable_label(*token, parts_.labels);
    return fmt::format("#{}", id);
  }

  std::optional<std::string> token(int64_t id) const override {
    if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) return it->second->content;
    return parts_.model->id_to_token(id);
  }

  std::optional<int64_t> unknown_id() const override { return parts_.model->unknown_id(); }
  std::optional<int64_t> bos_id() const override { return parts_.bos; }

  int64_t vocab_size() const override { return std::max(parts_.model->vocab_size(), max_id_ + 1); }

  std::string description() const override {
    std::string text = fmt::format("{} ({}", parts_.description, parts_.model->description());
    if (!parts_.added_tokens.empty()) {
      text += fmt::format(
          ", {}", count_of(static_cast<long long>(parts_.added_tokens.size()), "added token"));
    }
    return text + ")";
  }

 private:
  TokenPiece added_piece(const AddedToken& token, const NormalizedText& text) const {
    if (token.id < 0) {
      throw Error(
          fmt::format("{}: the text holds '{}' at byte {}, a special token the vocabulary lacks "
                      "(transformers would give it a new id, outside the model's table)",
                      parts_.source, printable_text(token.content), text.input_begin()));
    }
    return {token.id, printable_text(token.content), text.input_begin(), text.input_end()};
  }

  void tokenize_words(const NormalizedText& text, std::vector<TokenPiece>& pieces) const {
    std::vector<NormalizedText> words;
    if (parts_.pre_tokenizer) {
      words = parts_.pre_tokenizer->split({text});
    } else {
      words.push_back(text);
    }
    for (const NormalizedText& word : words) {
      if (word.text.empty()) continue;
      const size_t first = pieces.size();
      parts_.model->tokenize(word, pieces);
      for (size_t i = first; i < pieces.size(); ++i)
        pieces[i].label = readable_label(pieces[i].label, parts_.labels);
    }
  }

  PipelineParts parts_;
  std::unique_ptr<AddedMatcher> raw_matcher_;
  std::unique_ptr<AddedMatcher> normalized_matcher_;
  std::unordered_map<int64_t, const AddedToken*> added_by_id_;
  int64_t max_id_ = -1;
};

}  // namespace

std::string readable_label(std::string_view token, LabelStyle style) {
  switch (style) {
    case LabelStyle::byte_level:
      if (const auto bytes = byte_level_decode(token)) return byte_label(*bytes);
      return printable_text(token);
    case LabelStyle::metaspace: {
      std::string text(token);
      for (size_t at = 0; (at = text.find("\u2581", at)) != std::string::npos;)
        text.replace(at, 3, "\u2423");
      return printable_text(text);
    }
    case LabelStyle::plain:
      break;
  }
  return printable_text(token);
}

std::unique_ptr<Tokenizer> make_pipeline_tokenizer(PipelineParts parts) {
  return std::make_unique<PipelineTokenizer>(std::move(parts));
}

}  // namespace attnviz
