// Fuzzes tokenizer.json end to end: the input up to its first NUL byte is the file (every part:
// normalizers, pre-tokenizers, models, post-processors, added tokens), the rest the text encoded
// with and without special tokens. Every piece must lie inside the text, begin ≤ end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_json.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text =
      nul == std::string_view::npos ? std::string_view("Hello world") : input.substr(nul + 1);
  if (attnviz::find_invalid_utf8(text)) return 0;
  std::filesystem::create_directories(attnviz::fuzz::work_dir() / "tok");
  const auto path = attnviz::fuzz::write_input("tok/tokenizer.json", data, json.size());
  try {
    const auto tokenizer = attnviz::read_tokenizer_json(path);
    for (const bool special : {false, true}) {
      for (const auto& piece : tokenizer->encode(text, special)) {
        if (piece.begin > piece.end || piece.end > text.size()) std::abort();
        (void)tokenizer->label(piece.id);
      }
    }
    (void)tokenizer->description();
  } catch (const attnviz::Error&) {
  }
  return 0;
}
