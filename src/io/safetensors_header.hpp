// Private to src/io: validation of a safetensors file's header and data layout, kept apart from the
// mapping and conversion code so each check can be read next to the others.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/io/safetensors.hpp"

namespace attnviz::detail {

// Bytes of the little-endian u64 header length that opens every file.
inline constexpr uint64_t k_safetensors_length_bytes = 8;

// Bytes per element of a safetensors dtype name; 0 when the dtype is unknown.
uint64_t safetensors_dtype_size(std::string_view dtype);

struct SafetensorsLayout {
  std::vector<TensorInfo> tensors;  // sorted by data_offsets
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // file offset of the data buffer: 8 + header length
};

// Checks the whole file, given as its bytes, the way the reference reader does (and also rejects
// duplicate keys, which the reference's JSON map would silently merge). Throws Error naming `file`.
SafetensorsLayout validate_safetensors(std::string_view bytes, const std::string& file);

}  // namespace attnviz::detail
