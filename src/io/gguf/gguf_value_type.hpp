// The GGUF value type of a C++ type (uint8_t → U8, …, std::string → String), shared by the
// metadata getters and the writer's value builders. Private to src/io/.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz::detail {

template <typename T>
constexpr GgufValueType value_type_of() {
  if constexpr (std::is_same_v<T, uint8_t>)
    return GgufValueType::U8;
  else if constexpr (std::is_same_v<T, int8_t>)
    return GgufValueType::I8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return GgufValueType::U16;
  else if constexpr (std::is_same_v<T, int16_t>)
    return GgufValueType::I16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return GgufValueType::U32;
  else if constexpr (std::is_same_v<T, int32_t>)
    return GgufValueType::I32;
  else if constexpr (std::is_same_v<T, float>)
    return GgufValueType::F32;
  else if constexpr (std::is_same_v<T, bool>)
    return GgufValueType::Bool;
  else if constexpr (std::is_same_v<T, std::string>)
    return GgufValueType::String;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return GgufValueType::U64;
  else if constexpr (std::is_same_v<T, int64_t>)
    return GgufValueType::I64;
  else
    return GgufValueType::F64;
}

}  // namespace attnviz::detail
