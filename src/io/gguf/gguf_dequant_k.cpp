// Dequantisation of the K-quants (super-blocks of 256 elements in sub-blocks of 16 or 32, each
// sub-block with its own quantised scale and, for Q2_K/Q4_K/Q5_K, min), as ggml-common.h lays out
// block_q{2,3,4,5,6}_K and ggml-quants.c's dequantize_row_q*_K read them.
#include <cstring>

#include "gguf_dequant.hpp"

namespace attnviz::detail {
namespace {

// Q4_K / Q5_K pack 8 six-bit scales and 8 six-bit mins in 12 bytes: sub-blocks 0-3 in the low six
// bits of bytes 0-3 (scales) and 4-7 (mins); sub-blocks 4-7 in the nibbles of bytes 8-11 with
// their top two bits in the top bits of bytes 0-3 (scales) and 4-7 (mins).
void scale_min_k4(int j, const unsigned char* q, float& scale, float& min) {
  if (j < 4) {
    scale = static_cast<float>(q[j] & 63);
    min = static_cast<float>(q[j + 4] & 63);
  } else {
    scale = static_cast<float>((q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4));
    min = static_cast<float>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// Q4_K and Q5_K share their layout but for qh: 4 (or 5) bit quants x = d·scale·q - dmin·min,
// each 32-byte run of qs holding a sub-block pair (low nibbles, then high nibbles).
void dequantize_q45_k(const unsigned char* b, const unsigned char* qh, const unsigned char* qs,
                      float* out) {
  const float d = read_f16(b);
  const float dmin = read_f16(b + 2);
  const unsigned char* scales = b + 4;
  for (int pair = 0; pair < 4; ++pair) {
    float sc0, m0, sc1, m1;
    scale_min_k4(2 * pair, scales, sc0, m0);
    scale_min_k4(2 * pair + 1, scales, sc1, m1);
    const unsigned bit0 = 1u << (2 * pair), bit1 = 2u << (2 * pair);
    for (int l = 0; l < 32; ++l) {
      const int hi0 = qh && (qh[l] & bit0) ? 16 : 0;
      const int hi1 = qh && (qh[l] & bit1) ? 16 : 0;
      out[64 * pair + l] = d * sc0 * static_cast<float>((qs[l] & 0x0F) + hi0) - dmin * m0;
      out[64 * pair + 32 + l] = d * sc1 * static_cast<float>((qs[l] >> 4) + hi1) - dmin * m1;
    }
    qs += 32;
  }
}

}  // namespace

// block_q2_K: scales[16] (low nibble scale, high nibble min, per 16 elements), qs[64] (2 bits),
// d, dmin. Each half of 128 elements reads 32 bytes of qs at shifts 0, 2, 4, 6.
void dequantize_q2_k(const unsigned char* b, float* out) {
  const unsigned char* scales = b;
  const unsigned char* qs = b + 16;
  const float d = read_f16(b + 80);
  const float dmin = read_f16(b + 82);
  int is = 0;
  for (int half = 0; half < 2; ++half) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int part = 0; part < 2; ++part) {
        const unsigned char sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0x0F);
        const float ml = dmin * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) {
          *out++ = dl * static_cast<float>((qs[16 * part + l] >> shift) & 3) - ml;
        }
      }
    }
    qs += 32;
  }
}

// block_q3_K: hmask[32] (the third bit; clear means q - 4), qs[64] (low 2 bits), scales[12]
// (16 six-bit scales, stored minus 32), d.
void dequantize_q3_k(const unsigned char* b, float* out) {
  const unsigned char* hmask = b;
  const unsigned char* qs = b + 32;
  const float d = read_f16(b + 108);
  uint32_t aux[4];
  std::memcpy(aux, b + 96, 12);
  // Unpack: low nibbles from bytes 0-7, top two bits from bytes 8-11.
  const uint32_t k1 = 0x03030303u, k2 = 0x0f0f0f0fu, tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & k2) | (((tmp >> 4) & k1) << 4);
  aux[3] = ((aux[1] >> 4) & k2) | (((tmp >> 6) & k1) << 4);
  aux[0] = (aux[0] & k2) | (((tmp >> 0) & k1) << 4);
  aux[1] = (aux[1] & k2) | (((tmp >> 2) & k1) << 4);
  int8_t scales[16];
  std::memcpy(scales, aux, 16);
  int is = 0;
  unsigned m = 1;
  for (int half = 0; half < 2; ++half) {
    for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
      for (int part = 0; part < 2; ++part) {
        const float dl = d * static_cast<float>(scales[is++] - 32);
        for (int l = 16 * part; l < 16 * part + 16; ++l) {
          const int q = ((qs[l] >> shift) & 3) - ((hmask[l] & m) ? 0 : 4);
          *out++ = dl * static_cast<float>(q);
        }
      }
    }
    qs += 32;
  }
}

// block_q4_K: d, dmin, scales[12], qs[128].
void dequantize_q4_k(const unsigned char* b, float* out) {
  dequantize_q45_k(b, nullptr, b + 16, out);
}

// block_q5_K: d, dmin, scales[12], qh[32] (fifth bits: bits 2p and 2p+1 for sub-block pair p),
// qs[128].
void dequantize_q5_k(const unsigned char* b, float* out) {
  dequantize_q45_k(b, b + 16, b + 48, out);
}

// block_q6_K: ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8, per 16 elements), d;
// q is 6 bits minus 32; x = (d·scale)·q, in ggml's order of rounding. Each half of 128 elements
// reads 64 bytes of ql and 32 of qh.
void dequantize_q6_k(const unsigned char* b, float* out) {
  const unsigned char* ql = b;
  const unsigned char* qh = b + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = read_f16(b + 208);
  for (int half = 0; half < 2; ++half) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      out[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      out[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      out[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      out[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    out += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

}  // namespace attnviz::detail
