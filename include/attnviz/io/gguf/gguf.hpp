// GGUF (llama.cpp's model file): a memory-mapped reader that makes every check of llama.cpp's
// gguf.cpp, typed metadata getters, the tensor list, and dequantisation to float32 by rows.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// Metadata value types, numbered as in the file (gguf.h's enum gguf_type).
enum class GgufValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};
std::string_view gguf_value_type_name(GgufValueType type);  // "u32", "str", ... as gguf.cpp

// One metadata value: a scalar (count 1) or an array of one element type; arrays of arrays are
// refused on read, as llama.cpp does. Numbers are kept as their little-endian bytes.
struct GgufValue {
  GgufValueType type = GgufValueType::U8;  // the element type for arrays
  bool is_array = false;
  uint64_t count = 1;
  std::vector<unsigned char> bytes;  // count × element size, for numbers and bool
  std::vector<std::string> strings;  // for String
};

// The metadata in file order, with typed lookup. Getters throw Error naming the file, the key,
// the expected and the actual type (or that the key is absent).
class GgufMetadata {
 public:
  GgufMetadata() = default;
  GgufMetadata(std::string file, std::vector<std::pair<std::string, GgufValue>> entries);

  const std::vector<std::pair<std::string, GgufValue>>& entries() const { return entries_; }
  const GgufValue* find(const std::string& key) const;  // nullptr when absent
  // T: uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t, float, double,
  // bool, std::string.
  template <typename T>
  T get(const std::string& key) const;
  template <typename T>
  std::vector<T> get_array(const std::string& key) const;
  // A count or size stored as any integer type (writers use u32 or u64, some i32), refused when
  // negative or when the key holds anything else.
  uint64_t get_count(const std::string& key) const;

 private:
  const GgufValue& require(const std::string& key, GgufValueType type, bool array) const;
  std::string file_;
  std::vector<std::pair<std::string, GgufValue>> entries_;
  std::map<std::string, size_t> index_;
};

// ggml tensor types, numbered as in the file (ggml.h's enum ggml_type).
enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
};
std::string ggml_type_name(uint32_t type);    // "Q4_K", ...; "type 99" for unknown numbers
bool ggml_type_dequantizable(uint32_t type);  // attnviz can convert it to float32

// A regular file whose first four bytes are GGUF's magic, whatever its name (Ollama's blobs have no
// extension): TensorSource, find_tokenizer and inspect read it as GGUF.
bool is_gguf_file(const std::filesystem::path& path);

struct GgufTensorInfo {
  std::string name;
  uint32_t type = 0;          // a ggml_type number; see ggml_type_name
  std::vector<int64_t> dims;  // ggml order: dims[0] is the row length (ne[0]), fastest varying
  uint64_t offset = 0;        // from the start of the data section
  uint64_t bytes = 0;         // unpadded size in the file
  int64_t row_length() const { return dims.empty() ? 1 : dims[0]; }
  int64_t rows() const;  // product of dims[1..]
};

class GgufFile {
 public:
  // Maps and validates the file; throws Error (exit 1) naming the file, the field, expected,
  // actual.
  static GgufFile open(const std::filesystem::path& path);

  GgufFile(GgufFile&&) noexcept;
  GgufFile& operator=(GgufFile&&) noexcept;
  ~GgufFile();

  const std::filesystem::path& path() const;
  uint32_t version() const;
  uint64_t alignment() const;    // general.alignment, else 32
  uint64_t data_offset() const;  // where the data section starts in the file
  const GgufMetadata& metadata() const;
  const std::vector<GgufTensorInfo>& tensors() const;         // in file order
  const GgufTensorInfo* find(const std::string& name) const;  // nullptr when absent

  // The whole tensor as float32, in ggml order (row r at r × row_length()).
  std::vector<float> dequantize(const GgufTensorInfo& tensor) const;
  // Rows [r0, r1) into out, which holds (r1 - r0) × row_length() floats; a layer can be converted
  // as it runs. Unsupported types and rows out of range are refused (Error).
  void dequantize_rows(const GgufTensorInfo& tensor, int64_t r0, int64_t r1, float* out) const;
  // Where the tensor's bytes lie in the mapping (tensor.bytes long), to release its pages once
  // converted.
  const char* tensor_data(const GgufTensorInfo& tensor) const;

 private:
  struct Impl;
  explicit GgufFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnviz
