// Fuzzes --mask text (rows of 0/1, floats, -inf) through read_mask_file on a file. The first two
// bytes choose n_query and n_key (1-16), so sizes that do and do not match the text are both
// tried; the third chooses the convention (auto, keep, block, additive).
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int n_query = 1 + data[0] % 16, n_key = 1 + data[1] % 16;
  const auto convention = static_cast<attnviz::MaskConvention>(data[2] % 4);
  try {
    const auto path = attnviz::fuzz::write_input("mask.txt", data + 3, size - 3);
    (void)attnviz::read_mask_file(path.string(), n_query, n_key, convention);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
