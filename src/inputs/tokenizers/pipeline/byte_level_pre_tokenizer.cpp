// tokenizer.json's ByteLevel pre-tokenizer: an optional leading space, GPT-2's regex (use_regex),
// then every byte written as one character of GPT-2's byte-level alphabet.
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"
#include "attnviz/inputs/tokenizers/pipeline/gpt2_pretokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "split_behavior.hpp"

namespace attnviz {

namespace {

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}

  std::vector<NormalizedText> split(std::vector<NormalizedText> pieces) const override {
    std::vector<NormalizedText> out;
    for (NormalizedText& piece : pieces) {
      if (add_prefix_space_ && !piece.text.starts_with(' ')) piece = with_leading_space(piece);
      if (use_regex_) {
        for (const NormalizedText& part :
             split_at(piece, gpt2_regex().find_all(piece.text), SplitBehavior::isolated)) {
          out.push_back(to_alphabet(part));
        }
      } else if (!piece.text.empty()) {
        out.push_back(to_alphabet(piece));
      }
    }
    return out;
  }

 private:
  static NormalizedText with_leading_space(const NormalizedText& piece) {
    NormalizedText out;
    out.text = " " + piece.text;
    out.origin.reserve(piece.origin.size() + 1);
    out.origin.push_back(piece.input_begin());  // the inserted space covers no input byte
    out.origin.insert(out.origin.end(), piece.origin.begin(), piece.origin.end());
    return out;
  }

  // Each byte → its character of the alphabet, keeping the byte's origin.
  static NormalizedText to_alphabet(const NormalizedText& piece) {
    NormalizedText out;
    for (size_t i = 0; i < piece.text.size(); ++i) {
      const size_t before = out.text.size();
      append_utf8(out.text, byte_to_unicode(static_cast<uint8_t>(piece.text[i])));
      out.origin.insert(out.origin.end(), out.text.size() - before, piece.origin[i]);
    }
    out.origin.push_back(piece.input_end());
    return out;
  }

  bool add_prefix_space_;
  bool use_regex_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(const nlohmann::json& spec,
                                                            const SpecPlace& place) {
  // trim_offsets changes only the offsets tokenizers reports, not the pieces.
  (void)spec_bool(spec, "trim_offsets", true, place);
  return std::make_unique<ByteLevelPreTokenizer>(spec_bool(spec, "add_prefix_space", true, place),
                                                 spec_bool(spec, "use_regex", true, place));
}

}  // namespace attnviz
