// The K-quants with a scale and a min per 32-element group (Q4_K, Q5_K) as ggml-quants.c's
// quantize_row_q4_K_ref / quantize_row_q5_K_ref: 6-bit group scales and mins against two F16
// super-block values, then every element re-rounded against its group's stored scale and min.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "attnviz/io/half_float.hpp"
#include "gguf_dequant.hpp"
#include "gguf_quantize.hpp"

namespace attnviz::detail {
namespace {

constexpr int k_qk_k = 256;
constexpr int k_groups = k_qk_k / 32;

// The 12 scale bytes: groups 0-3 keep 6 bits in bytes 0-3 (scales) and 4-7 (mins); groups 4-7
// keep their low 4 bits in bytes 8-11 and their top 2 bits in the spare bits 6-7 of bytes 0-7.
void pack_scales(const float* scales, const float* mins, float max_scale, float max_min,
                 unsigned char* s) {
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (int j = 0; j < k_groups; ++j) {
    const auto ls = static_cast<uint8_t>(std::min(63, nearest_int(inv_scale * scales[j]) & 0xFF));
    const auto lm = static_cast<uint8_t>(std::min(63, nearest_int(inv_min * mins[j]) & 0xFF));
    if (j < 4) {
      s[j] = ls;
      s[j + 4] = lm;
    } else {
      s[j + 4] = static_cast<unsigned char>((ls & 0xF) | ((lm & 0xF) << 4));
      s[j - 4] |= static_cast<unsigned char>((ls >> 4) << 6);
      s[j] |= static_cast<unsigned char>((lm >> 4) << 6);
    }
  }
}

// get_scale_min_k4: group j's stored 6-bit scale and min.
void scale_min(int j, const unsigned char* s, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

// Levels in [0, nmax] for one super-block into L; writes d, dmin and the scales at out.
void quantize_levels(const float* x, int nmax, float rmin, int nstep, uint8_t* L,
                     unsigned char* out) {
  uint8_t Laux[32];
  float weights[32], mins[k_groups], scales[k_groups];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < k_groups; ++j) {
    const float* g = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += g[l] * g[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(g[l]);
    scales[j] = make_qkx2_quants(32, nmax, g, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f,
                                 nstep, false);
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  pack_scales(scales, mins, max_scale, max_min, out + 4);
  store_f16(out, f32_to_f16(max_scale / 63.f));
  store_f16(out + 2, f32_to_f16(max_min / 63.f));
  const float d_all = read_f16(out), dmin_all = read_f16(out + 2);
  for (int j = 0; j < k_groups; ++j) {
    int sc, m;
    scale_min(j, out + 4, sc, m);
    const float d = d_all * static_cast<float>(sc);
    if (d == 0) continue;
    const float dm = dmin_all * static_cast<float>(m);
    for (int i = 0; i < 32; ++i) {
      L[32 * j + i] =
          static_cast<uint8_t>(std::clamp(nearest_int((x[32 * j + i] + dm) / d), 0, nmax));
    }
  }
}

// Q4_K block: d, dmin, scales[12], qs[128] (in each 64, byte l holds elements l and l + 32).
void quantize_q4_k_block(const float* x, unsigned char* out) {
  uint8_t L[k_qk_k];
  quantize_levels(x, 15, -1.f, 20, L, out);
  unsigned char* q = out + 16;
  for (int j = 0; j < k_qk_k; j += 64, q += 32) {
    for (int l = 0; l < 32; ++l) q[l] = static_cast<unsigned char>(L[j + l] | (L[j + l + 32] << 4));
  }
}

// Q5_K block: d, dmin, scales[12], qh[32] (fifth bits: element j + 64n + 32h at bit 2n + h of
// byte j), qs[128] (as Q4_K).
void quantize_q5_k_block(const float* x, unsigned char* out) {
  uint8_t L[k_qk_k];
  quantize_levels(x, 31, -0.5f, 15, L, out);
  unsigned char* qh = out + 16;
  unsigned char* ql = out + 48;
  std::memset(qh, 0, 32);
  for (int n = 0, bit = 0; n < k_qk_k; n += 64, bit += 2, ql += 32) {
    for (int j = 0; j < 32; ++j) {
      int l1 = L[n + j], l2 = L[n + j + 32];
      if (l1 > 15) {
        l1 -= 16;
        qh[j] |= static_cast<unsigned char>(1u << bit);
      }
      if (l2 > 15) {
        l2 -= 16;
        qh[j] |= static_cast<unsigned char>(2u << bit);
      }
      ql[j] = static_cast<unsigned char>(l1 | (l2 << 4));
    }
  }
}

}  // namespace

void quantize_q4_k(const float* x, int64_t n, unsigned char* out) {
  for (int64_t i = 0; i < n / k_qk_k; ++i) quantize_q4_k_block(x + i * k_qk_k, out + i * 144);
}

void quantize_q5_k(const float* x, int64_t n, unsigned char* out) {
  for (int64_t i = 0; i < n / k_qk_k; ++i) quantize_q5_k_block(x + i * k_qk_k, out + i * 176);
}

}  // namespace attnviz::detail
