// Quantisation of float32 rows to ggml's tensor types, byte for byte as ggml's reference quantisers
// (ggml-quants.c's quantize_row_*_ref, what llama_model_quantize runs when given no imatrix).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace attnviz {

// F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K (GgmlType numbers).
bool ggml_type_quantizable(uint32_t type);

// Bytes of a row of n elements of the type; throws Error when the type is unknown or n is not a
// whole number of its blocks (32 for Q4_0..Q8_0, 256 for the K-quants).
uint64_t ggml_row_bytes(uint32_t type, int64_t n);

// x (a whole number of rows of row_length elements) in the type: ggml_row_bytes(type, row_length)
// bytes per row. Throws Error for an unsupported type or a row length that is not a whole number
// of blocks.
std::vector<unsigned char> quantize_rows(uint32_t type, std::span<const float> x,
                                         int64_t row_length);

}  // namespace attnviz
