// safetensors: a memory-mapped, fully validated reader and a writer the reference format reads.
// Format: u64 little-endian header length N, N bytes of UTF-8 JSON header, then the data buffer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/tensor.hpp"

namespace attnviz {

// The reference implementation (huggingface/safetensors, MAX_HEADER_SIZE) refuses larger headers;
// so do attnviz's reader and, before writing, its writer.
inline constexpr uint64_t k_safetensors_max_header = 100'000'000;

struct TensorInfo {
  std::string name;
  std::string dtype;            // as in the file: "F32", "F16", "BF16", "F64", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;           // data_offsets, relative to the start of the data buffer
  uint64_t end = 0;
};

class SafetensorsFile {
 public:
  // Maps and validates the file; throws Error (exit 1) naming the file, tensor, expected and actual.
  static SafetensorsFile open(const std::filesystem::path& path);

  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::filesystem::path& path() const;
  // Tensors in data-offset order.
  const std::vector<TensorInfo>& tensors() const;
  const TensorInfo* find(const std::string& name) const;  // nullptr when absent
  const std::map<std::string, std::string>& metadata() const;  // "__metadata__"
  // The tensor converted to float32 (F32, F16, BF16, F64); other dtypes rejected by name.
  Tensor load(const std::string& name) const;

 private:
  struct Impl;
  explicit SafetensorsFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A float32 tensor to write. data points at shape-product floats, row-major.
struct TensorView {
  std::string name;
  std::vector<int64_t> shape;
  const float* data = nullptr;
};

// Serialises tensors (dtype F32) and metadata: header padded with spaces to a multiple of 8 bytes,
// tensors laid out in the given order. A header over k_safetensors_max_header is refused (Error).
std::string serialize_safetensors(const std::vector<TensorView>& tensors,
                                  const std::map<std::string, std::string>& metadata);
// Bytes of `text` as a JSON string in a header (quotes and escapes), counted without building it:
// labels in metadata can be MBs, and the header limit is checked before the JSON is made.
uint64_t safetensors_json_string_bytes(std::string_view text);

// serialize_safetensors + write_file_atomically.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace attnviz
