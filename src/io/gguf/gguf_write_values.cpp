// Metadata values for the GGUF writer: scalars and arrays of each number type, bools and strings,
// kept as the reader keeps them (little-endian bytes, GgufValue).
#include <cstring>
#include <string>
#include <type_traits>

#include "attnviz/io/gguf/gguf_write.hpp"
#include "gguf_value_type.hpp"

namespace attnviz {
namespace {

template <typename T>
void append(std::vector<unsigned char>& bytes, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    bytes.push_back(v ? 1 : 0);  // gguf bools are one byte, 0 or 1
  } else {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
  }
}

}  // namespace

template <typename T>
GgufValue gguf_scalar(T value) {
  GgufValue v;
  v.type = detail::value_type_of<T>();
  append(v.bytes, value);
  return v;
}

template <typename T>
GgufValue gguf_array(const std::vector<T>& values) {
  GgufValue v;
  v.type = detail::value_type_of<T>();
  v.is_array = true;
  v.count = values.size();
  for (const T x : values) append(v.bytes, x);
  return v;
}

GgufValue gguf_string(const std::string& value) {
  GgufValue v;
  v.type = GgufValueType::String;
  v.strings = {value};
  return v;
}

GgufValue gguf_strings(const std::vector<std::string>& values) {
  GgufValue v;
  v.type = GgufValueType::String;
  v.is_array = true;
  v.count = values.size();
  v.strings = values;
  return v;
}

#define ATTNVIZ_GGUF_VALUE(T)           \
  template GgufValue gguf_scalar<T>(T); \
  template GgufValue gguf_array<T>(const std::vector<T>&);
ATTNVIZ_GGUF_VALUE(uint8_t)
ATTNVIZ_GGUF_VALUE(int8_t)
ATTNVIZ_GGUF_VALUE(uint16_t)
ATTNVIZ_GGUF_VALUE(int16_t)
ATTNVIZ_GGUF_VALUE(uint32_t)
ATTNVIZ_GGUF_VALUE(int32_t)
ATTNVIZ_GGUF_VALUE(uint64_t)
ATTNVIZ_GGUF_VALUE(int64_t)
ATTNVIZ_GGUF_VALUE(float)
ATTNVIZ_GGUF_VALUE(double)
ATTNVIZ_GGUF_VALUE(bool)
#undef ATTNVIZ_GGUF_VALUE

}  // namespace attnviz
