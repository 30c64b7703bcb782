// A GGUF v3 writer: metadata of every value type (scalars and arrays), tensors given as float32
// rows and written in a target type (quantised byte for byte as ggml's reference quantisers), laid
// out as llama.cpp's gguf.cpp writes (general.alignment, each tensor padded), written atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz {

// Metadata values to hand to GgufWriter::set. T: uint8_t, int8_t, uint16_t, int16_t, uint32_t,
// int32_t, uint64_t, int64_t, float, double, bool.
template <typename T>
GgufValue gguf_scalar(T value);
template <typename T>
GgufValue gguf_array(const std::vector<T>& values);
GgufValue gguf_string(const std::string& value);
GgufValue gguf_strings(const std::vector<std::string>& values);

class GgufWriter {
 public:
  // Adds or replaces a key (keys keep the order they were first set in). general.alignment must be
  // a u32 power of two; it sets the padding of the tensor data.
  void set(const std::string& key, GgufValue value);

  // A tensor from values (dims in ggml order: dims[0] is the row length, values row after row),
  // converted to `type` now (quantize_rows), so only the converted bytes are kept. Refuses a
  // duplicate or over-long name, dims whose product is not values.size(), a row that is not whole
  // blocks of the type, and values the type cannot hold (a finite value that becomes inf or NaN,
  // like 1e6 in F16 or a Q4_0 block whose F16 scale overflows).
  void add_tensor(const std::string& name, const std::vector<int64_t>& dims, uint32_t type,
                  std::span<const float> values);

  // The whole file; validated by the reader's checks (parse_gguf) before it is returned.
  std::string bytes() const;
  // bytes() written atomically to path (temp file + rename).
  void write(const std::filesystem::path& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<int64_t> dims;
    uint32_t type = 0;
    std::vector<unsigned char> data;
  };
  uint64_t alignment() const;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<Tensor> tensors_;
};

}  // namespace attnviz
