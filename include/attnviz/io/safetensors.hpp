// safetensors: a memory-mapped, fully validated reader and a writer the reference format reads.
// Format: u64 little-endian header length N, N bytes of UTF-8 JSON header, then the data buffer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
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
  std::string dtype;  // as in the file: "F32", "F16", "BF16", "F64", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // data_offsets, relative to the start of the data buffer
  uint64_t end = 0;
};

// The floating-point dtypes attnviz converts to float32.
enum class FloatDtype { f32, f16, bf16, f64 };

// "F32" → f32, "F16", "BF16", "F64"; nullopt for any other dtype (integers, F8, bool).
std::optional<FloatDtype> float_dtype(std::string_view name);
size_t dtype_bytes(FloatDtype dtype);
// Converts n elements stored as `dtype` at `src` (little-endian, any alignment) to float32 at
// `out`: F16 and BF16 exactly, F64 rounded to nearest (overflow → ±inf).
void convert_to_float(FloatDtype dtype, const char* src, size_t n, float* out);

// A float tensor as the file stores it, unconverted: `data` points into the mapping and is valid
// while its SafetensorsFile lives.
struct StoredTensor {
  FloatDtype dtype = FloatDtype::f32;
  std::vector<int64_t> shape;
  const char* data = nullptr;  // shape-product elements of dtype
};

// Drops this process's pages of a read-only mapping over [data, data + bytes): they stay in the
// page cache and fault back in when read again, so converted weights do not also count as resident.
void release_mapped(const char* data, size_t bytes);

class SafetensorsFile {
 public:
  // Maps and validates the file; throws Error (exit 1) naming the file, tensor, expected and
  // actual.
  static SafetensorsFile open(const std::filesystem::path& path);

  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::filesystem::path& path() const;
  // Tensors in data-offset order.
  const std::vector<TensorInfo>& tensors() const;
  const TensorInfo* find(const std::string& name) const;       // nullptr when absent
  const std::map<std::string, std::string>& metadata() const;  // "__metadata__"
  // The tensor converted to float32 (F32, F16, BF16, F64); other dtypes rejected by name. Its
  // mapped pages are released once converted.
  Tensor load(const std::string& name) const;
  // The tensor's bytes in the mapping, for reading in its stored dtype (same dtype check as load).
  StoredTensor stored(const std::string& name) const;

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

// A tensor's place in a file whose data is written separately (streamed): dtype "F32" or "F16".
struct TensorLayout {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
};
// The 8-byte length and the padded header JSON for tensors laid out in this order, data offsets
// from 0: what serialize_safetensors writes before the data, byte for byte. The JSON is padded with
// spaces so the data starts at a multiple of `align` bytes (8; a filesystem block for --save).
std::string serialize_safetensors_header(const std::vector<TensorLayout>& tensors,
                                         const std::map<std::string, std::string>& metadata,
                                         uint64_t align = 8);

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
