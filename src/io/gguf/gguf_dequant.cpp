// Dequantisation of the float types and the 32-element quants (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0), and
// the dispatch by type; the K-quants are in gguf_dequant_k.cpp.
#include "gguf_dequant.hpp"

#include <cstring>

#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/half_float.hpp"
#include "gguf_types.hpp"

namespace attnviz::detail {
namespace {

uint32_t read_u32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// q·d, plus m for the _1 types only: ggml adds no m to the _0 types, and -0.0 + 0 would be +0.0
// where ggml's file says -0.0 (a level of 0 times a negative scale).
float scaled(float q, float d, float m, bool has_min) {
  return has_min ? q * d + m : q * d;
}

// Q4_0 / Q4_1: byte j holds element j (low nibble) and j + 16 (high nibble); x = q·d + m, with
// q - 8 and no m for Q4_0.
void dequantize_q4(const unsigned char* b, bool has_min, float* out) {
  const float d = read_f16(b);
  const float m = has_min ? read_f16(b + 2) : 0.0f;
  const unsigned char* qs = b + (has_min ? 4 : 2);
  const int offset = has_min ? 0 : 8;
  for (int j = 0; j < 16; ++j) {
    out[j] = scaled(static_cast<float>((qs[j] & 0x0F) - offset), d, m, has_min);
    out[j + 16] = scaled(static_cast<float>((qs[j] >> 4) - offset), d, m, has_min);
  }
}

// Q5_0 / Q5_1: as Q4, with a fifth bit per element from qh (bit j for element j); q - 16 for Q5_0.
void dequantize_q5(const unsigned char* b, bool has_min, float* out) {
  const float d = read_f16(b);
  const float m = has_min ? read_f16(b + 2) : 0.0f;
  const uint32_t qh = read_u32(b + (has_min ? 4 : 2));
  const unsigned char* qs = b + (has_min ? 8 : 6);
  const int offset = has_min ? 0 : 16;
  for (int j = 0; j < 16; ++j) {
    const int hi0 = static_cast<int>((qh >> j) & 1u) << 4;
    const int hi1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
    out[j] = scaled(static_cast<float>(((qs[j] & 0x0F) | hi0) - offset), d, m, has_min);
    out[j + 16] = scaled(static_cast<float>(((qs[j] >> 4) | hi1) - offset), d, m, has_min);
  }
}

void dequantize_q8_0(const unsigned char* b, float* out) {
  const float d = read_f16(b);
  for (int j = 0; j < 32; ++j) out[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

template <typename Block>
void each_block(const unsigned char* src, int64_t n, uint64_t bytes, int64_t block, float* out,
                Block decode) {
  for (int64_t i = 0; i < n / block; ++i) decode(src + i * bytes, out + i * block);
}

}  // namespace

float read_f16(const unsigned char* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

void dequantize_blocks(uint32_t type, const unsigned char* src, int64_t n, float* out) {
  const GgmlTypeTraits& t = *ggml_type_traits(type);
  const auto run = [&](auto decode) { each_block(src, n, t.block_bytes, t.block, out, decode); };
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::F32:
      if (n > 0) std::memcpy(out, src, static_cast<size_t>(n) * 4);
      return;
    case GgmlType::F16:
      return run([](const unsigned char* b, float* o) { *o = read_f16(b); });
    case GgmlType::BF16:
      return run([](const unsigned char* b, float* o) {
        uint16_t v;
        std::memcpy(&v, b, 2);
        *o = bf16_to_f32(v);
      });
    case GgmlType::Q4_0:
      return run([](auto b, float* o) { dequantize_q4(b, false, o); });
    case GgmlType::Q4_1:
      return run([](auto b, float* o) { dequantize_q4(b, true, o); });
    case GgmlType::Q5_0:
      return run([](auto b, float* o) { dequantize_q5(b, false, o); });
    case GgmlType::Q5_1:
      return run([](auto b, float* o) { dequantize_q5(b, true, o); });
    case GgmlType::Q8_0:
      return run(dequantize_q8_0);
    case GgmlType::Q2_K:
      return run(dequantize_q2_k);
    case GgmlType::Q3_K:
      return run(dequantize_q3_k);
    case GgmlType::Q4_K:
      return run(dequantize_q4_k);
    case GgmlType::Q5_K:
      return run(dequantize_q5_k);
    case GgmlType::Q6_K:
      return run(dequantize_q6_k);
    default:
      return;  // the caller refused it (ggml_type_dequantizable)
  }
}

}  // namespace attnviz::detail
