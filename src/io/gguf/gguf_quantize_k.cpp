// The K-quants with 16-element groups (Q2_K, Q3_K, Q6_K) as ggml-quants.c's quantize_row_*_ref:
// a scale search per group, the group scales quantised against one F16 super-block scale, then
// every element re-rounded against its group's stored scale.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "attnviz/io/half_float.hpp"
#include "gguf_dequant.hpp"
#include "gguf_quantize.hpp"

namespace attnviz::detail {
namespace {

constexpr int k_qk_k = 256;  // QK_K: elements per super-block
constexpr int k_groups = k_qk_k / 16;

// 2-bit levels, four per byte: in each half of 128, byte l holds elements l, l + 32, l + 64, l
// + 96.
void pack_2bit(const uint8_t* L, unsigned char* qs) {
  for (int j = 0; j < k_qk_k; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<unsigned char>(L[j + l] | (L[j + l + 32] << 2) |
                                                 (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
    }
  }
}

// Q2_K block: scales[16] (scale | min << 4), qs[64], d, dmin.
void quantize_q2_k_block(const float* x, unsigned char* out) {
  uint8_t L[k_qk_k], Laux[16];
  float weights[16], mins[k_groups], scales[k_groups];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < k_groups; ++j) {
    for (int l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
    scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f,
                                 0.1f, 15, true);
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  unsigned char* sc = out;
  std::memset(sc, 0, k_groups);
  if (max_scale > 0) {
    const float iscale = 15.f / max_scale;
    for (int j = 0; j < k_groups; ++j)
      sc[j] = static_cast<unsigned char>(nearest_int(iscale * scales[j]));
  }
  store_f16(out + 80, f32_to_f16(max_scale > 0 ? max_scale / 15.f : 0.f));
  if (max_min > 0) {
    const float iscale = 15.f / max_min;
    for (int j = 0; j < k_groups; ++j)
      sc[j] |= static_cast<unsigned char>(nearest_int(iscale * mins[j]) << 4);
  }
  store_f16(out + 82, f32_to_f16(max_min > 0 ? max_min / 15.f : 0.f));
  const float d_all = read_f16(out + 80), dmin_all = read_f16(out + 82);
  for (int j = 0; j < k_groups; ++j) {
    const float d = d_all * static_cast<float>(sc[j] & 0xF);
    if (d == 0) continue;
    const float dm = dmin_all * static_cast<float>(sc[j] >> 4);
    for (int i = 0; i < 16; ++i)
      L[16 * j + i] = static_cast<uint8_t>(std::clamp(nearest_int((x[16 * j + i] + dm) / d), 0, 3));
  }
  pack_2bit(L, out + 16);
}

// Q3_K's group scale j as stored: 4 low bits in byte j (j < 8) or j - 8's high nibble, 2 high
// bits in byte 8 + j % 4 at bit 2 · (j / 4); offset by 32.
int q3_k_scale(const unsigned char* s, int j) {
  const int low = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
  return static_cast<int8_t>(low | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
}

// Q3_K block: hmask[32], qs[64], scales[12], d.
void quantize_q3_k_block(const float* x, unsigned char* out) {
  int8_t L[k_qk_k];
  float scales[k_groups];
  float max_scale = 0, amax = 0;
  for (int j = 0; j < k_groups; ++j) {
    scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
    if (std::fabs(scales[j]) > amax) {
      amax = std::fabs(scales[j]);
      max_scale = scales[j];
    }
  }
  unsigned char* s = out + 96;
  std::memset(s, 0, 12);
  float d_block = 0.f;
  if (max_scale != 0) {
    const float iscale = -32.f / max_scale;
    for (int j = 0; j < k_groups; ++j) {
      int8_t l = static_cast<int8_t>(nearest_int(iscale * scales[j]));
      l = static_cast<int8_t>(std::max<int>(-32, std::min<int>(31, l)) + 32);
      if (j < 8)
        s[j] = static_cast<unsigned char>(l & 0xF);
      else
        s[j - 8] |= static_cast<unsigned char>((l & 0xF) << 4);
      s[j % 4 + 8] |= static_cast<unsigned char>((l >> 4) << (2 * (j / 4)));
    }
    d_block = 1 / iscale;
  }
  store_f16(out + 108, f32_to_f16(d_block));
  const float d_all = read_f16(out + 108);
  for (int j = 0; j < k_groups; ++j) {
    const float d = d_all * static_cast<float>(q3_k_scale(s, j));
    if (d == 0) continue;
    for (int i = 0; i < 16; ++i)
      L[16 * j + i] = static_cast<int8_t>(std::clamp(nearest_int(x[16 * j + i] / d), -4, 3) + 4);
  }
  // The third bit of element j goes to hmask[j % 32] at bit j / 32.
  unsigned char* hmask = out;
  std::memset(hmask, 0, 32);
  uint8_t U[k_qk_k];
  for (int j = 0; j < k_qk_k; ++j) {
    const bool high = L[j] > 3;
    if (high) hmask[j % 32] |= static_cast<unsigned char>(1u << (j / 32));
    U[j] = static_cast<uint8_t>(high ? L[j] - 4 : L[j]);
  }
  pack_2bit(U, out + 32);
}

// Q6_K block: ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8), d.
void quantize_q6_k_block(const float* x, unsigned char* out) {
  int8_t L[k_qk_k];
  float scales[k_groups];
  float max_scale = 0, max_abs_scale = 0;
  for (int ib = 0; ib < k_groups; ++ib) {
    scales[ib] = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1);
    if (std::fabs(scales[ib]) > max_abs_scale) {
      max_abs_scale = std::fabs(scales[ib]);
      max_scale = scales[ib];
    }
  }
  std::memset(out, 0, 210);
  if (max_abs_scale < 1e-15f) return;  // GROUP_MAX_EPS: an all-zero block
  const float iscale = -128.f / max_scale;
  store_f16(out + 208, f32_to_f16(1 / iscale));
  const float d_all = read_f16(out + 208);
  auto* sc = reinterpret_cast<int8_t*>(out + 192);
  for (int ib = 0; ib < k_groups; ++ib)
    sc[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
  for (int j = 0; j < k_groups; ++j) {
    const float d = d_all * static_cast<float>(sc[j]);
    if (d == 0) continue;
    for (int i = 0; i < 16; ++i)
      L[16 * j + i] = static_cast<int8_t>(std::clamp(nearest_int(x[16 * j + i] / d), -32, 31) + 32);
  }
  unsigned char* ql = out;
  unsigned char* qh = out + 128;
  for (int j = 0; j < k_qk_k; j += 128, ql += 64, qh += 32) {
    for (int l = 0; l < 32; ++l) {
      const int a = L[j + l], b = L[j + l + 32], c = L[j + l + 64], e = L[j + l + 96];
      ql[l] = static_cast<unsigned char>((a & 0xF) | ((c & 0xF) << 4));
      ql[l + 32] = static_cast<unsigned char>((b & 0xF) | ((e & 0xF) << 4));
      qh[l] = static_cast<unsigned char>((a >> 4) | ((b >> 4) << 2) | ((c >> 4) << 4) |
                                         ((e >> 4) << 6));
    }
  }
}

template <typename Block>
void each_block(const float* x, int64_t n, unsigned char* out, size_t bytes, Block quantize) {
  for (int64_t i = 0; i < n / k_qk_k; ++i) quantize(x + i * k_qk_k, out + i * bytes);
}

}  // namespace

void quantize_q2_k(const float* x, int64_t n, unsigned char* out) {
  each_block(x, n, out, 84, quantize_q2_k_block);
}
void quantize_q3_k(const float* x, int64_t n, unsigned char* out) {
  each_block(x, n, out, 110, quantize_q3_k_block);
}
void quantize_q6_k(const float* x, int64_t n, unsigned char* out) {
  each_block(x, n, out, 210, quantize_q6_k_block);
}

}  // namespace attnviz::detail
