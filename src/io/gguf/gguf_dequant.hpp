// Dequantisation of ggml blocks to float32, one function per type, as ggml-quants.c's
// dequantize_row_* define the formats. Private to src/io/.
#pragma once

#include <cstdint>

namespace attnviz::detail {

// n elements (a whole number of the type's blocks) from src into out. The caller checked the type
// is dequantizable (ggml_type_dequantizable) and that src holds the blocks.
void dequantize_blocks(uint32_t type, const unsigned char* src, int64_t n, float* out);

// One block of QK_K = 256 elements of each K-quant (gguf_dequant_k.cpp).
void dequantize_q2_k(const unsigned char* block, float* out);
void dequantize_q3_k(const unsigned char* block, float* out);
void dequantize_q4_k(const unsigned char* block, float* out);
void dequantize_q5_k(const unsigned char* block, float* out);
void dequantize_q6_k(const unsigned char* block, float* out);

// The F16 at p (unaligned, little-endian) as float.
float read_f16(const unsigned char* p);

}  // namespace attnviz::detail
