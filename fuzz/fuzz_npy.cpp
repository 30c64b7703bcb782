// Fuzzes .npy input: the header parser from bytes, then read_npy (2-D float) and read_npy_array
// (any rank and dtype, as --mask reads it) from a file, and the mask reader on top of it.
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "attnviz/io/npy.hpp"
#include "fuzz_input.hpp"
#include "io/npy_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)attnviz::detail::parse_npy_header({reinterpret_cast<const char*>(data), size}, "input");
  } catch (const attnviz::Error&) {
  }
  const auto path = attnviz::fuzz::write_input("in.npy", data, size);
  try {
    (void)attnviz::read_npy(path);
  } catch (const attnviz::Error&) {
  }
  try {
    (void)attnviz::read_npy_array(path);
  } catch (const attnviz::Error&) {
  }
  for (const auto c : {attnviz::MaskConvention::automatic, attnviz::MaskConvention::block,
                       attnviz::MaskConvention::additive}) {
    try {
      (void)attnviz::read_mask_file(path.string(), 2, 2, c);
    } catch (const attnviz::Error&) {
    }
  }
  return 0;
}
