// GGUF validation from bytes: header, metadata, tensor infos and the data layout, with every check
// of llama.cpp's gguf.cpp (gguf_init_from_reader). Private to src/io/; the fuzz target uses it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnviz/io/gguf/gguf.hpp"
#include "gguf_cursor.hpp"

namespace attnviz::detail {

inline constexpr uint64_t k_gguf_default_alignment = 32;
inline constexpr size_t k_ggml_max_name = 64;   // GGML_MAX_NAME: names are shorter (with the NUL)
inline constexpr uint32_t k_ggml_max_dims = 4;  // GGML_MAX_DIMS

struct GgufLayout {
  uint32_t version = 0;
  uint64_t alignment = k_gguf_default_alignment;
  uint64_t data_offset = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensorInfo> tensors;
};

// Throws Error naming `file`, the field, expected and actual.
GgufLayout parse_gguf(std::string_view bytes, const std::string& file);

// Parts of parse_gguf, each in its own file.
void read_gguf_metadata(GgufCursor& in, uint64_t n_kv,
                        GgufLayout& layout);  // gguf_metadata_read.cpp
void read_gguf_tensor_infos(GgufCursor& in, uint64_t n_tensors,
                            GgufLayout& layout);                        // gguf_tensor_infos.cpp
void check_gguf_data_layout(const GgufCursor& in, GgufLayout& layout);  // gguf_tensor_infos.cpp

}  // namespace attnviz::detail
