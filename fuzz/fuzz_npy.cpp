// Fuzzes .npy input: the header parser from bytes, then read_npy (header + data) from a file.
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/io/npy.hpp"
#include "fuzz_input.hpp"
#include "io/npy_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)attnviz::detail::parse_npy_header({reinterpret_cast<const char*>(data), size}, "input");
  } catch (const attnviz::Error&) {
  }
  try {
    (void)attnviz::read_npy(attnviz::fuzz::write_input("in.npy", data, size));
  } catch (const attnviz::Error&) {
  }
  return 0;
}
