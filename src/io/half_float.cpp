// float32 → F16 / BF16 rounding as ggml's, and the F16C path of whole rows.
#include "attnviz/io/half_float.hpp"

#include <cpuid.h>
#include <immintrin.h>

namespace attnviz {

uint16_t f32_to_f16(float x) {
  const uint32_t w = std::bit_cast<uint32_t>(x);
  const auto sign = static_cast<uint16_t>((w >> 16) & 0x8000u);
  const uint32_t a = w & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return sign | 0x7E00u;   // NaN: ggml writes the canonical quiet NaN
  if (a >= 0x477FF000u) return sign | 0x7C00u;  // ≥ 65520 rounds past 65504 to inf
  if (a >= 0x38800000u) {                       // a normal half (≥ 2^-14)
    // Rebias the exponent (127 → 15), keep 10 mantissa bits, round the 13 dropped to even; a
    // carry out of the mantissa correctly bumps the exponent.
    uint32_t h = ((a >> 23) - 112) << 10 | ((a >> 13) & 0x3FFu);
    const uint32_t rest = a & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // Subnormal halves are multiples of 2^-24: scaling by 2^24 is exact, nearbyint rounds to even.
  const float scaled = std::ldexp(std::bit_cast<float>(a), 24);
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
}

namespace {

// VCVTPS2PH rounds to nearest even, gives subnormals and ±inf as IEEE says; only a NaN's payload
// differs from f32_to_f16's canonical quiet NaN, so NaN lanes are rewritten after.
__attribute__((target("avx,f16c"))) void f32_to_f16_f16c(const float* x, uint16_t* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = f32_to_f16(x[i]);
  for (size_t k = 0; k < n; ++k) {
    const uint16_t h = out[k];
    if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0)
      out[k] = static_cast<uint16_t>((h & 0x8000u) | 0x7E00u);
  }
}

// AVX usable (the CPU has it and the OS saves its registers) and CPUID's F16C bit; clang-14's
// __builtin_cpu_supports knows no "f16c".
bool has_f16c() {
  static const bool yes = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 &&
           (ecx & bit_F16C) != 0;
  }();
  return yes;
}

}  // namespace

void f32_to_f16_n(const float* x, uint16_t* out, size_t n) {
  if (has_f16c()) return f32_to_f16_f16c(x, out, n);
  for (size_t i = 0; i < n; ++i) out[i] = f32_to_f16(x[i]);
}

uint16_t f32_to_bf16(float x) {
  const uint32_t w = std::bit_cast<uint32_t>(x);
  if ((w & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((w >> 16) | 64u);  // quiet NaN
  return static_cast<uint16_t>((w + (0x7FFFu + ((w >> 16) & 1u))) >> 16);  // round to nearest even
}

}  // namespace attnviz
