// GGUF metadata: key/value pairs of every value type and arrays of them, as gguf.cpp reads them
// (no empty or duplicate key, no array of arrays, no length beyond the file), then
// general.alignment (a u32, a power of two; 32 when absent).
#include <fmt/format.h>

#include <set>

#include "attnviz/core/error.hpp"
#include "gguf_header.hpp"

namespace attnviz::detail {
namespace {

// Bytes of one element of a number or bool type; 0 for string, array and unknown types.
uint64_t element_bytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::U8:
    case GgufValueType::I8:
    case GgufValueType::Bool:
      return 1;
    case GgufValueType::U16:
    case GgufValueType::I16:
      return 2;
    case GgufValueType::U32:
    case GgufValueType::I32:
    case GgufValueType::F32:
      return 4;
    case GgufValueType::U64:
    case GgufValueType::I64:
    case GgufValueType::F64:
      return 8;
    default:
      return 0;
  }
}

GgufValueType read_value_type(GgufCursor& in, const std::string& key, bool in_array) {
  const auto raw = in.read<int32_t>(fmt::format("the type of key '{}'", key));
  const auto type = static_cast<GgufValueType>(raw);
  if (in_array && type == GgufValueType::Array) {
    throw Error(
        fmt::format("{}: key '{}' is an array of arrays; GGUF (llama.cpp) allows only "
                    "arrays of numbers, bools or strings",
                    in.file(), key));
  }
  if (raw < 0 || raw > static_cast<int32_t>(GgufValueType::F64)) {
    throw Error(fmt::format("{}: key '{}' has value type {}, expected 0 to 12 (u8 .. f64)",
                            in.file(), key, raw));
  }
  return type;
}

GgufValue read_value(GgufCursor& in, const std::string& key) {
  GgufValue value;
  value.type = read_value_type(in, key, false);
  if (value.type == GgufValueType::Array) {
    value.is_array = true;
    value.type = read_value_type(in, key, true);
    value.count = in.read<uint64_t>(fmt::format("the length of array '{}'", key));
  }
  const uint64_t each = value.type == GgufValueType::String ? 8 : element_bytes(value.type);
  if (value.count > in.remaining() / each) {
    throw Error(
        fmt::format("{}: array '{}' has {} elements of {}, beyond the end of the file "
                    "({} bytes remain)",
                    in.file(), key, value.count, gguf_value_type_name(value.type), in.remaining()));
  }
  if (value.type == GgufValueType::String) {
    value.strings.reserve(value.count);
    for (uint64_t i = 0; i < value.count; ++i) {
      value.strings.push_back(in.read_string(value.is_array
                                                 ? fmt::format("element {} of '{}'", i, key)
                                                 : "the value of '" + key + "'"));
    }
  } else {
    const std::string_view raw = in.take(value.count * each, "the value of '" + key + "'");
    value.bytes.assign(raw.begin(), raw.end());
  }
  return value;
}

void read_alignment(GgufCursor& in, GgufLayout& layout) {
  for (const auto& [key, value] : layout.metadata) {
    if (key != "general.alignment") continue;
    if (value.type != GgufValueType::U32 || value.is_array) {
      throw Error(fmt::format("{}: key 'general.alignment' must be of type u32, but is {}{}",
                              in.file(), value.is_array ? "an array of " : "",
                              gguf_value_type_name(value.type)));
    }
    uint32_t alignment = 0;
    std::memcpy(&alignment, value.bytes.data(), 4);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      throw Error(fmt::format("{}: general.alignment is {}, expected a power of two", in.file(),
                              alignment));
    }
    layout.alignment = alignment;
  }
}

}  // namespace

void read_gguf_metadata(GgufCursor& in, uint64_t n_kv, GgufLayout& layout) {
  std::set<std::string> seen;
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = in.read_string(fmt::format("key {}", i));
    if (key.empty()) throw Error(fmt::format("{}: key {} is empty", in.file(), i));
    if (!seen.insert(key).second) {
      throw Error(fmt::format("{}: duplicate key '{}' (key {})", in.file(), key, i));
    }
    GgufValue value = read_value(in, key);
    layout.metadata.emplace_back(std::move(key), std::move(value));
  }
  read_alignment(in, layout);
}

}  // namespace attnviz::detail
