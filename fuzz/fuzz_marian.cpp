// Fuzzes Marian's tokenizer: with a first byte below 128, the rest is a vocab.json beside the
// fixture's source.spm / target.spm (read_marian_vocab and the special tokens' lookup); else the
// rest is a text both sides of the fixture folder tokenize (language codes, offsets, refusals).
// Run from the repository root (scripts/fuzz.sh does), which holds tests/fixtures/marian.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/marian_tokenizer.hpp"
#include "fuzz_input.hpp"

namespace {

const std::filesystem::path k_fixture = "tests/fixtures/marian";

// The fixture's .spm files copied once into a folder of this process, for vocab.json inputs.
const std::filesystem::path& vocab_folder() {
  static const std::filesystem::path dir =
      attnviz::fuzz::folder_with_copies("marian", k_fixture, {"source.spm", "target.spm"});
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto source = attnviz::make_marian_tokenizer(k_fixture, attnviz::MarianSide::source);
  static const auto target = attnviz::make_marian_tokenizer(k_fixture, attnviz::MarianSide::target);
  try {
    if (data[0] < 128) {
      const auto dir = vocab_folder();
      attnviz::fuzz::write_input("marian/vocab.json", data + 1, size - 1);
      const auto t = attnviz::make_marian_tokenizer(dir, attnviz::MarianSide::source);
      (void)t->encode("the cat", true);
    } else {
      const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
      for (const auto* t : {source.get(), target.get()}) {
        for (const auto& p : t->encode(text, true)) {
          if (p.begin > p.end || p.end > text.size()) __builtin_trap();  // offsets inside the text
          (void)t->label(p.id);
        }
      }
    }
  } catch (const attnviz::Error&) {
  }
  return 0;
}
