// Fuzzes --layout-file (a JSON map of tensor-name patterns per role) through read_layout_file.
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/model/layout.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)attnviz::read_layout_file(attnviz::fuzz::write_input("layout.json", data, size));
  } catch (const attnviz::Error&) {
  }
  return 0;
}
