// The ggml tensor types a GGUF file may name: block size (elements) and block bytes, from ggml's
// type traits (ggml.c) and block layouts (ggml-common.h). Private to src/io/.
#pragma once

#include <cstdint>

namespace attnviz::detail {

// Types numbered 0 .. k_ggml_type_count - 1 are in range (llama.cpp at MXFP4 = 39); the numbers of
// types removed from GGUF (4, 5, 31-33, 36-38) have block size 0 and are refused, as llama.cpp
// does.
inline constexpr uint32_t k_ggml_type_count = 40;

struct GgmlTypeTraits {
  const char* name = nullptr;  // nullptr: a removed type
  int64_t block = 0;           // elements per block
  uint64_t block_bytes = 0;    // bytes per block
};

// The traits of a type in range; nullptr when out of range.
const GgmlTypeTraits* ggml_type_traits(uint32_t type);

}  // namespace attnviz::detail
