// 16-bit floats widened to float32, exactly: IEEE binary16 (F16) and bfloat16 (BF16). Shared by the
// safetensors and GGUF readers (GGUF's quantised blocks carry their scales as F16).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace attnviz::detail {

// IEEE 754 binary16 → binary32. Every half value is exactly representable as a float, including
// subnormals (mant × 2^-24), so this is exact; NaN payloads are kept.
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // inf, NaN
  if (exp != 0) {
    // Rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exp + 127 - 15) << 23) | (mant << 13));
  }
  const float magnitude = std::ldexp(static_cast<float>(mant), -24);  // subnormal or zero
  return sign ? -magnitude : magnitude;
}

// bfloat16 is the top half of a binary32, so widening is a shift.
inline float bf16_to_f32(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace attnviz::detail
