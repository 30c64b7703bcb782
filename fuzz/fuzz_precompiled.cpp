// Fuzzes SentencePiece's precompiled charsmap (tokenizer.json's Precompiled normalizer): the blob
// is the input; a text of fullwidth, ligature, combining and emoji clusters, and the input's own
// bytes where they are UTF-8, are normalized through it. A damaged blob is an Error, never a read
// outside it. The input is also read as base64, as tokenizer.json carries the blob.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "attnviz/core/base64.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/precompiled_charsmap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (const auto decoded = attnviz::base64_decode(bytes)) {
    if (attnviz::base64_encode(*decoded) != bytes) __builtin_trap();  // canonical: round-trips
  }
  try {
    const attnviz::PrecompiledCharsmap map(bytes, "fuzz");
    (void)map.normalize(attnviz::NormalizedText::of_input(
        "\uff21\ufb01 \u2460\u00bd e\u0301 \uff83\uff9e \U0001F469\U0001F3FD\u200d\U0001F4BB x"));
    const std::string tail(bytes.substr(std::min<size_t>(size, 4)));
    if (!attnviz::find_invalid_utf8(tail))
      (void)map.normalize(attnviz::NormalizedText::of_input(tail));
    for (size_t n = 0; n <= tail.size() && n < 16; ++n) (void)map.transform(tail.substr(0, n));
  } catch (const attnviz::Error&) {
  }
  return 0;
}
