// The 32-element quantisers (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0) as ggml-quants.c's quantize_row_*_ref:
// a scale (and a min for the _1 types) per block of 32, then each element rounded to its level.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "attnviz/io/half_float.hpp"
#include "gguf_quantize.hpp"

namespace attnviz::detail {
namespace {

constexpr int k_qk = 32;  // elements per block

// The element of largest magnitude, signed (the first one on ties): the _0 types map it to the
// most negative level, so its sign decides the direction of the scale.
float signed_absmax(const float* x) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < k_qk; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  return max;
}

void min_max(const float* x, float& min, float& max) {
  min = std::numeric_limits<float>::max();
  max = -std::numeric_limits<float>::max();
  for (int j = 0; j < k_qk; ++j) {
    if (x[j] < min) min = x[j];
    if (x[j] > max) max = x[j];
  }
}

// ggml's MIN(top, (int8_t)(v)): truncated toward zero, wrapped to int8, clamped above.
uint8_t level(float v, int top) {
  return static_cast<uint8_t>(
      std::min(top, static_cast<int>(static_cast<int8_t>(truncate_like_x86(v)))));
}

// Packs 32 levels: element j in the low nibble of byte j, element j + 16 in the high nibble;
// fifth bits (when qh) at bit j of qh.
void pack(const uint8_t* l, unsigned char* qs, unsigned char* qh) {
  uint32_t high = 0;
  for (int j = 0; j < k_qk / 2; ++j) {
    qs[j] = static_cast<unsigned char>((l[j] & 0x0F) | ((l[j + k_qk / 2] & 0x0F) << 4));
    high |= static_cast<uint32_t>((l[j] & 0x10u) >> 4) << j;
    high |= static_cast<uint32_t>((l[j + k_qk / 2] & 0x10u) >> 4) << (j + k_qk / 2);
  }
  if (qh) std::memcpy(qh, &high, 4);
}

// Q4_0 (bits 4) and Q5_0 (bits 5): d = max / -2^(bits-1), level = x/d + 2^(bits-1), rounded.
void quantize_symmetric(const float* x, int64_t n, int bits, unsigned char* out) {
  const int half = 1 << (bits - 1);
  const size_t block_bytes = bits == 4 ? 18 : 22;
  for (int64_t i = 0; i < n / k_qk; ++i, x += k_qk, out += block_bytes) {
    const float d = signed_absmax(x) / static_cast<float>(-half);
    const float id = d != 0 ? 1.0f / d : 0.0f;
    store_f16(out, f32_to_f16(d));
    uint8_t l[k_qk];
    for (int j = 0; j < k_qk; ++j)
      l[j] = level(x[j] * id + (static_cast<float>(half) + 0.5f), 2 * half - 1);
    pack(l, bits == 4 ? out + 2 : out + 6, bits == 4 ? nullptr : out + 2);
  }
}

// Q4_1 (bits 4) and Q5_1 (bits 5): d = (max - min) / (2^bits - 1), level = (x - min)/d, rounded.
void quantize_with_min(const float* x, int64_t n, int bits, unsigned char* out) {
  const int top = (1 << bits) - 1;
  const size_t block_bytes = bits == 4 ? 20 : 24;
  for (int64_t i = 0; i < n / k_qk; ++i, x += k_qk, out += block_bytes) {
    float min, max;
    min_max(x, min, max);
    const float d = (max - min) / static_cast<float>(top);
    const float id = d != 0 ? 1.0f / d : 0.0f;
    store_f16(out, f32_to_f16(d));
    store_f16(out + 2, f32_to_f16(min));
    uint8_t l[k_qk];
    for (int j = 0; j < k_qk; ++j) {
      const float v = (x[j] - min) * id + 0.5f;
      // Q4_1 clamps to 15 through (int8_t); Q5_1 casts straight to uint8_t without a clamp.
      l[j] = bits == 4 ? level(v, top) : static_cast<uint8_t>(truncate_like_x86(v));
    }
    pack(l, bits == 4 ? out + 4 : out + 8, bits == 4 ? nullptr : out + 4);
  }
}

}  // namespace

void quantize_q4_0(const float* x, int64_t n, unsigned char* out) {
  quantize_symmetric(x, n, 4, out);
}
void quantize_q5_0(const float* x, int64_t n, unsigned char* out) {
  quantize_symmetric(x, n, 5, out);
}
void quantize_q4_1(const float* x, int64_t n, unsigned char* out) {
  quantize_with_min(x, n, 4, out);
}
void quantize_q5_1(const float* x, int64_t n, unsigned char* out) {
  quantize_with_min(x, n, 5, out);
}

// Q8_0: d = absmax / 127, each element round(x / d) as an int8.
void quantize_q8_0(const float* x, int64_t n, unsigned char* out) {
  for (int64_t i = 0; i < n / k_qk; ++i, x += k_qk, out += 34) {
    float amax = 0.0f;
    for (int j = 0; j < k_qk; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0 ? 1.0f / d : 0.0f;
    store_f16(out, f32_to_f16(d));
    for (int j = 0; j < k_qk; ++j) {
      out[2 + j] =
          static_cast<unsigned char>(static_cast<int8_t>(truncate_like_x86(std::round(x[j] * id))));
    }
  }
}

}  // namespace attnviz::detail
