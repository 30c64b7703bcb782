// 16-bit floats: IEEE binary16 (F16) and bfloat16 (BF16) widened to float32 exactly, and float32
// rounded to them as ggml rounds. Shared by the safetensors and GGUF readers and writers and by the
// outputs that store maps as F16 (--save --save-dtype f16, the --html page).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace attnviz {

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

// float32 → IEEE binary16 and bfloat16, rounding to nearest even as ggml's GGML_FP32_TO_FP16 and
// ggml_compute_fp32_to_bf16 (NaN becomes a quiet NaN; F16 overflow becomes ±inf).
uint16_t f32_to_f16(float x);
uint16_t f32_to_bf16(float x);
// out_i = f32_to_f16(x_i), bit for bit; with the CPU's F16C conversion where it has one (--save
// --save-dtype f16 converts every map: attention weights are mostly binary16 subnormals).
void f32_to_f16_n(const float* x, uint16_t* out, std::size_t n);

}  // namespace attnviz
