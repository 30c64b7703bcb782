// Fuzzes token text (--tokens): UTF-8 validation and whitespace splitting.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokens.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)attnviz::split_tokens({reinterpret_cast<const char*>(data), size}, "input");
  } catch (const attnviz::Error&) {
  }
  return 0;
}
