// Fuzzes GPT-2's byte-level BPE (pre-tokenizer regex, byte map, merges, labels) on arbitrary
// bytes, with a tiny vocabulary (every byte, a few merges) written once to /dev/shm.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "fuzz_input.hpp"

namespace {

// Every one of the 256 byte-level characters is a token, so only invalid UTF-8 is refused.
const attnviz::Tokenizer& tokenizer() {
  static const std::unique_ptr<attnviz::Tokenizer> t = [] {
    const auto dir = attnviz::fuzz::work_dir() / "bpe";
    std::filesystem::create_directories(dir);
    std::string vocab = "{";
    std::string merges = "#version: 0.2\n";
    int id = 0;
    auto add = [&](const std::string& token) {
      vocab += (id == 0 ? "\"" : ", \"") + token + "\": " + std::to_string(id);
      ++id;
    };
    for (int b = 0; b < 324; ++b) {
      const char32_t cp = static_cast<char32_t>(b);
      // The alphabet: the printable bytes as themselves and U+0100..U+0143 for the other 68.
      const bool in_alphabet = (cp >= '!' && cp <= '~') || (cp >= 0xA1 && cp <= 0xAC) ||
                               (cp >= 0xAE && cp <= 0xFF) || cp >= 256;
      if (!in_alphabet) continue;
      std::string token;
      if (cp == '"' || cp == '\\')
        token = std::string("\\") + static_cast<char>(cp);
      else if (cp < 0x80)
        token = std::string(1, static_cast<char>(cp));
      else
        token = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
      add(token);
    }
    for (const char* m : {"Ġ t", "Ġ a", "h e", "Ġt he", "e r", "Ġ Ġ", "ĠĠ ĠĠ", "æ Ī"}) {
      merges += std::string(m) + "\n";
      std::string result(m);
      result.erase(result.find(' '), 1);
      add(result);
    }
    vocab += "}";
    std::ofstream(dir / "vocab.json", std::ios::binary) << vocab;
    std::ofstream(dir / "merges.txt", std::ios::binary) << merges;
    return attnviz::find_tokenizer(dir);
  }();
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const attnviz::Tokenizer& t =
      tokenizer();  // outside the try: a vocabulary that fails to load is a bug here
  try {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& piece : t.encode(text, false)) {
      if (piece.label.empty() || piece.end <= piece.begin || piece.end > size) __builtin_trap();
      (void)t.label(piece.id);
    }
  } catch (const attnviz::Error&) {
  }
  return 0;
}
