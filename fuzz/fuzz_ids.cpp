// Fuzzes id lists (--ids "5 17 3" or a file of them): parse_ids.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokens.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)attnviz::parse_ids({reinterpret_cast<const char*>(data), size}, "input");
  } catch (const attnviz::Error&) {
  }
  return 0;
}
