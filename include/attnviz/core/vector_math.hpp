// Float kernels over contiguous arrays, dispatched at run time to the widest SIMD the CPU has
// (Highway: AVX-512, AVX2, SSE4, SSE2), so one portable binary uses the machine it runs on.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnviz {

// max_i x_i; NaN when any x_i is NaN (so a NaN score is never hidden by the max), −inf for n = 0.
float max_of(const float* x, std::size_t n);

// y_i = exp(x_i − shift), exactly 0 where x_i − shift < ln(FLT_MIN) (−inf included: the true value
// is subnormal or 0); returns Σ_i y_i. For a finite shift and x_i free of NaN and +inf (softmax
// checks its row max first), each y_i within 1 ulp of expf. x and y may be the same array.
float exp_shifted(const float* x, float* y, std::size_t n, float shift);

// x_i *= factor.
void scale_in_place(float* x, std::size_t n, float factor);

// Whether no x_i is NaN or ±inf (tested on the bits: no slow path for subnormals).
bool all_finite(const float* x, std::size_t n);

// max(floor, max of the finite x_i): NaN and ±inf are skipped.
float max_finite(const float* x, std::size_t n, float floor);

// bins_i = min(⌊256 t_i⌋, 255) with t_i = (x_i − lo) / (hi − lo) clamped to [0, 1]; NaN, and every
// x_i when hi − lo is not a positive finite number, gives bin 0 (a colour map's 256 entries).
void bins_256(const float* x, std::size_t n, float lo, float hi, std::uint8_t* bins);

// Σ_i |x_i| with each byte read as a signed int8 (PNG's filter heuristic: 0x80 counts 128).
std::uint64_t sum_abs_int8(const std::uint8_t* x, std::size_t n);

// x_i = 0.5 x_i (1 + tanh(√(2/π) (x_i + 0.044715 x_i³))), GELU's tanh approximation (GPT-2's
// gelu_new), NaN kept NaN.
void gelu_tanh_in_place(float* x, std::size_t n);

}  // namespace attnviz
