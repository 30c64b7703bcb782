// GgufMetadata: lookup by key and typed getters whose errors name the file, the key, the expected
// and the actual type.
#include <fmt/format.h>

#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "gguf_value_type.hpp"

namespace attnviz {
namespace {

using detail::value_type_of;

template <typename T>
T element(const GgufValue& v, uint64_t i) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.strings[i];
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.bytes[i] != 0;  // gguf.cpp: any non-zero byte is true
  } else {
    T out;
    std::memcpy(&out, v.bytes.data() + i * sizeof(T), sizeof(T));
    return out;
  }
}

std::string describe(GgufValueType type, bool array) {
  return array ? fmt::format("an array of {}", gguf_value_type_name(type))
               : std::string(gguf_value_type_name(type));
}

}  // namespace

GgufMetadata::GgufMetadata(std::string file, std::vector<std::pair<std::string, GgufValue>> entries)
    : file_(std::move(file)), entries_(std::move(entries)) {
  for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
}

const GgufValue* GgufMetadata::find(const std::string& key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

const GgufValue& GgufMetadata::require(const std::string& key, GgufValueType type,
                                       bool array) const {
  const GgufValue* v = find(key);
  if (!v) {
    throw Error(
        fmt::format("{}: no metadata key '{}' (expected {})", file_, key, describe(type, array)));
  }
  if (v->type != type || v->is_array != array) {
    throw Error(fmt::format("{}: metadata key '{}' is {}, expected {}", file_, key,
                            describe(v->type, v->is_array), describe(type, array)));
  }
  return *v;
}

template <typename T>
T GgufMetadata::get(const std::string& key) const {
  return element<T>(require(key, value_type_of<T>(), false), 0);
}

template <typename T>
std::vector<T> GgufMetadata::get_array(const std::string& key) const {
  const GgufValue& v = require(key, value_type_of<T>(), true);
  std::vector<T> out;
  out.reserve(v.count);
  for (uint64_t i = 0; i < v.count; ++i) out.push_back(element<T>(v, i));
  return out;
}

uint64_t GgufMetadata::get_count(const std::string& key) const {
  const GgufValue* v = find(key);
  const auto refuse = [&](const std::string& actual) {
    return Error(fmt::format("{}: metadata key '{}' is {}, expected a non-negative integer", file_,
                             key, actual));
  };
  if (!v) throw Error(fmt::format("{}: no metadata key '{}' (expected an integer)", file_, key));
  if (v->is_array) throw refuse(describe(v->type, true));
  int64_t value = 0;
  switch (v->type) {
    case GgufValueType::U8:
      return element<uint8_t>(*v, 0);
    case GgufValueType::U16:
      return element<uint16_t>(*v, 0);
    case GgufValueType::U32:
      return element<uint32_t>(*v, 0);
    case GgufValueType::U64:
      return element<uint64_t>(*v, 0);
    case GgufValueType::I8:
      value = element<int8_t>(*v, 0);
      break;
    case GgufValueType::I16:
      value = element<int16_t>(*v, 0);
      break;
    case GgufValueType::I32:
      value = element<int32_t>(*v, 0);
      break;
    case GgufValueType::I64:
      value = element<int64_t>(*v, 0);
      break;
    default:
      throw refuse(describe(v->type, false));
  }
  if (value < 0) throw refuse(fmt::format("{} {}", gguf_value_type_name(v->type), value));
  return static_cast<uint64_t>(value);
}

#define ATTNVIZ_GGUF_GETTERS(T)                              \
  template T GgufMetadata::get<T>(const std::string&) const; \
  template std::vector<T> GgufMetadata::get_array<T>(const std::string&) const;
ATTNVIZ_GGUF_GETTERS(uint8_t)
ATTNVIZ_GGUF_GETTERS(int8_t)
ATTNVIZ_GGUF_GETTERS(uint16_t)
ATTNVIZ_GGUF_GETTERS(int16_t)
ATTNVIZ_GGUF_GETTERS(uint32_t)
ATTNVIZ_GGUF_GETTERS(int32_t)
ATTNVIZ_GGUF_GETTERS(uint64_t)
ATTNVIZ_GGUF_GETTERS(int64_t)
ATTNVIZ_GGUF_GETTERS(float)
ATTNVIZ_GGUF_GETTERS(double)
ATTNVIZ_GGUF_GETTERS(bool)
ATTNVIZ_GGUF_GETTERS(std::string)
#undef ATTNVIZ_GGUF_GETTERS

}  // namespace attnviz
