// Fuzzes --mask-file text (rows of 0/1) through read_mask_file on a file. The first two bytes
// choose n_query and n_key (1-16) so sizes that do and do not match the text are both tried.
#include <cstddef>
#include <cstdint>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int n_query = 1 + data[0] % 16, n_key = 1 + data[1] % 16;
  try {
    const auto path = attnviz::fuzz::write_input("mask.txt", data + 2, size - 2);
    (void)attnviz::read_mask_file(path.string(), n_query, n_key);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
