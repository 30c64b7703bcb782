// Fuzzes the Unigram model of tokenizer.json (Viterbi, unknown fusing, byte fallback) on arbitrary
// UTF-8 words, with a small vocabulary: multi-byte pieces, overlapping pieces and byte pieces for
// a few bytes only (so both fallbacks, bytes and <unk>, happen).
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace {

const attnviz::TokenModel& model() {
  static const attnviz::SpecContext ctx{"fuzz/tokenizer.json"};
  static const std::unique_ptr<attnviz::TokenModel> m = [] {
    nlohmann::json vocab = nlohmann::json::array({{"<unk>", 0.0}, {"<s>", 0.0}});
    const char* pieces[] = {
        "\u2581",       "\u2581a", "a",          "b",       "ab", "abc",          "c", "\u6211",
        "\u6211\u4eec", "\u4eec",  "\U0001F642", "e\u0301", "e",  "\u2581\u2581", " ", "\t"};
    double score = -1;
    for (const char* p : pieces) vocab.push_back({p, score -= 0.5});
    for (const int b : {0x41, 0x42, 0xC3, 0xA9, 0xE2, 0x98, 0x83})
      vocab.push_back({fmt::format("<0x{:02X}>", b), 0.0});
    const nlohmann::json spec = {
        {"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}, {"byte_fallback", true}};
    return attnviz::make_token_model(spec, attnviz::SpecPlace{ctx, "model"});
  }();
  return *m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const attnviz::TokenModel& m =
      model();  // outside the try: a vocabulary that fails to load is a bug here
  const std::string_view word(reinterpret_cast<const char*>(data), size);
  if (attnviz::find_invalid_utf8(word)) return 0;  // the pipeline hands models valid UTF-8 only
  try {
    std::vector<attnviz::TokenPiece> out;
    m.tokenize(attnviz::NormalizedText::of_input(word), out);
    // The pieces cover the word in order; byte pieces of one run share its offsets.
    size_t end = 0;
    for (const auto& piece : out) {
      if (piece.begin != end && !(piece.begin < end && piece.end == end)) __builtin_trap();
      if (piece.end <= piece.begin || piece.end > size || piece.id < 0 ||
          piece.id >= m.vocab_size())
        __builtin_trap();
      end = piece.end;
    }
    if (end != size) __builtin_trap();
  } catch (const attnviz::Error&) {
  }
  return 0;
}
