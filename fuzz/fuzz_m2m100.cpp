// Fuzzes M2M100's tokenizer: with a first byte below 128, the rest is a vocab.json beside the
// fixture's sentencepiece.bpe.model and tokenizer_config.json (its ids, the special tokens'
// lookup, the language tokens numbered after it); else the rest is a text the fixture folder
// tokenizes (special tokens whole or refused, offsets, labels).
// Run from the repository root (scripts/fuzz.sh does), which holds tests/fixtures/m2m100_tokenizer.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/m2m100_tokenizer.hpp"
#include "fuzz_input.hpp"

namespace {

const std::filesystem::path k_fixture = "tests/fixtures/m2m100_tokenizer";

// The fixture's model and config copied once into a folder of this process, for vocab.json inputs.
const std::filesystem::path& vocab_folder() {
  static const std::filesystem::path dir = attnviz::fuzz::folder_with_copies(
      "m2m100", k_fixture, {"sentencepiece.bpe.model", "tokenizer_config.json"});
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto fixture = attnviz::make_m2m100_tokenizer(k_fixture);
  try {
    if (data[0] < 128) {
      const auto dir = vocab_folder();
      attnviz::fuzz::write_input("m2m100/vocab.json", data + 1, size - 1);
      const auto t = attnviz::make_m2m100_tokenizer(dir);
      for (const auto& p : t->encode("the cat __fr__", false)) (void)t->label(p.id);
    } else {
      const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
      for (const auto& p : fixture->encode(text, true)) {
        if (p.begin > p.end || p.end > text.size()) __builtin_trap();  // offsets inside the text
        (void)fixture->label(p.id);
        (void)fixture->token(p.id);
      }
    }
  } catch (const attnviz::Error&) {
  }
  return 0;
}
