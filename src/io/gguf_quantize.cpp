// quantize_rows: the dispatch by type, row sizes, and float32 → F16 / BF16 rounding as ggml's.
#include "attnviz/io/gguf_quantize.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf.hpp"
#include "gguf_quantize.hpp"
#include "gguf_types.hpp"

namespace attnviz {
namespace {

using Quantizer = void (*)(const float*, int64_t, unsigned char*);

// The block quantiser of a type; nullptr for the float types and types attnviz does not write.
Quantizer block_quantizer(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::Q4_0:
      return detail::quantize_q4_0;
    case GgmlType::Q4_1:
      return detail::quantize_q4_1;
    case GgmlType::Q5_0:
      return detail::quantize_q5_0;
    case GgmlType::Q5_1:
      return detail::quantize_q5_1;
    case GgmlType::Q8_0:
      return detail::quantize_q8_0;
    case GgmlType::Q2_K:
      return detail::quantize_q2_k;
    case GgmlType::Q3_K:
      return detail::quantize_q3_k;
    case GgmlType::Q4_K:
      return detail::quantize_q4_k;
    case GgmlType::Q5_K:
      return detail::quantize_q5_k;
    case GgmlType::Q6_K:
      return detail::quantize_q6_k;
    default:
      return nullptr;
  }
}

bool is_float_type(uint32_t type) {
  const auto t = static_cast<GgmlType>(type);
  return t == GgmlType::F32 || t == GgmlType::F16 || t == GgmlType::BF16;
}

// The float types element by element (ggml_fp32_to_fp16_row, ggml_fp32_to_bf16_row_ref).
void convert_floats(uint32_t type, const float* x, size_t n, unsigned char* out) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::F32:
      std::memcpy(out, x, n * 4);
      return;
    case GgmlType::F16:
      for (size_t i = 0; i < n; ++i) detail::store_f16(out + 2 * i, f32_to_f16(x[i]));
      return;
    default:
      for (size_t i = 0; i < n; ++i) detail::store_f16(out + 2 * i, f32_to_bf16(x[i]));
      return;
  }
}

}  // namespace

bool ggml_type_quantizable(uint32_t type) {
  return is_float_type(type) || block_quantizer(type);
}

uint64_t ggml_row_bytes(uint32_t type, int64_t n) {
  if (!ggml_type_quantizable(type)) {
    throw Error(
        "GGUF writer: tensor type " + ggml_type_name(type) +
        " cannot be written (expected F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 or Q2_K-Q6_K)");
  }
  const detail::GgmlTypeTraits& t = *detail::ggml_type_traits(type);
  if (n < 0 || n % t.block != 0) {
    throw Error("GGUF writer: a row of " + std::to_string(n) +
                " elements is not a whole number of " + ggml_type_name(type) + " blocks (" +
                std::to_string(t.block) + " elements each)");
  }
  return static_cast<uint64_t>(n / t.block) * t.block_bytes;
}

std::vector<unsigned char> quantize_rows(uint32_t type, std::span<const float> x,
                                         int64_t row_length) {
  const uint64_t row_bytes = ggml_row_bytes(type, row_length);
  if (row_length == 0 ? !x.empty() : x.size() % static_cast<size_t>(row_length) != 0) {
    throw Error("GGUF writer: " + std::to_string(x.size()) + " values are not whole rows of " +
                std::to_string(row_length));
  }
  const size_t rows = row_length == 0 ? 0 : x.size() / static_cast<size_t>(row_length);
  std::vector<unsigned char> out(rows * row_bytes);
  if (out.empty()) return out;
  if (const Quantizer q = block_quantizer(type)) {
    // ggml quantises row by row; blocks never cross rows, so the whole run is the same bytes.
    q(x.data(), static_cast<int64_t>(x.size()), out.data());
  } else {
    convert_floats(type, x.data(), x.size(), out.data());
  }
  return out;
}

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
