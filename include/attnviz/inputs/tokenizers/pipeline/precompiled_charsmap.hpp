// SentencePiece's precompiled normalization rules (its normalizer_spec.precompiled_charsmap: the
// nmt_nfkc rules T5, mT5, XLM-R, ALBERT and NLLB ship, base64-encoded as tokenizer.json's
// Precompiled normalizer): a darts-clone double-array trie over UTF-8 byte strings whose values
// are offsets into a blob of NUL-terminated replacements. The blob: a little-endian uint32, the
// trie's size in bytes; the trie's uint32 units; the replacements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

class PrecompiledCharsmap {
 public:
  // Error naming `where` ("FILE: normalizer.precompiled_charsmap") unless `bytes` is that layout:
  // a trie of whole units within the blob, replacements that are valid UTF-8.
  PrecompiledCharsmap(std::string_view bytes, std::string where);

  // The replacement of the shortest rule that is a prefix of `chunk`, or nullopt when none is: the
  // first result of the trie's common-prefix search, as Hugging Face tokenizers' spm_precompiled
  // crate takes it. An Error when the trie leads outside itself or into the middle of a
  // replacement's character (a damaged blob that parsed).
  std::optional<std::string_view> transform(std::string_view chunk) const;

  // tokenizers' Precompiled normalizer: for each extended grapheme cluster of the text, a cluster
  // under 6 bytes with a rule is replaced whole; otherwise each character with a rule is replaced
  // and the others kept. Replacements keep the origin of what they replace.
  NormalizedText normalize(const NormalizedText& text) const;

 private:
  [[noreturn]] void fail(std::string_view what) const;

  std::vector<uint32_t> units_;
  std::string replacements_;
  std::string where_;
};

}  // namespace attnviz
