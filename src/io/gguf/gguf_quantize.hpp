// The per-type block quantisers behind quantize_rows, and the shared search helpers of ggml's
// K-quants (make_qx_quants and friends). Private to src/io/.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace attnviz::detail {

// One quantiser per type: n elements (a whole number of blocks) from x into out.
void quantize_q4_0(const float* x, int64_t n, unsigned char* out);
void quantize_q4_1(const float* x, int64_t n, unsigned char* out);
void quantize_q5_0(const float* x, int64_t n, unsigned char* out);
void quantize_q5_1(const float* x, int64_t n, unsigned char* out);
void quantize_q8_0(const float* x, int64_t n, unsigned char* out);
void quantize_q2_k(const float* x, int64_t n, unsigned char* out);
void quantize_q3_k(const float* x, int64_t n, unsigned char* out);
void quantize_q4_k(const float* x, int64_t n, unsigned char* out);
void quantize_q5_k(const float* x, int64_t n, unsigned char* out);
void quantize_q6_k(const float* x, int64_t n, unsigned char* out);

// Round to nearest by adding 1.5 · 2^23 and reading the mantissa, as ggml does: ties go to even,
// and out-of-range inputs give the same (meaningless) integer ggml's files hold.
inline int nearest_int(float x) {
  const float biased = x + 12582912.0f;
  return static_cast<int>(std::bit_cast<uint32_t>(biased) & 0x007FFFFFu) - 0x00400000;
}

// C's float → integer conversion as x86-64 performs it (cvttss2si): truncation toward zero, and
// INT_MIN for NaN and out-of-range values. ggml's (int8_t)(v) casts of such values (a block of
// float subnormals makes 1/d infinite) are undefined in C; this is what its x86 builds write.
inline int truncate_like_x86(float v) {
  if (!(v > -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
  return static_cast<int>(v);
}

// ggml's group searches (ggml-quants.c); argument names as there. Each returns the group's scale
// and fills L with the levels.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type);
float make_q3_quants(int n, int nmax, const float* x, int8_t* L);
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                       float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep,
                       bool use_mad);

// Little-endian stores into a block.
inline void store_f16(unsigned char* p, uint16_t h) {
  std::memcpy(p, &h, 2);
}

}  // namespace attnviz::detail
