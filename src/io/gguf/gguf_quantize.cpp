// quantize_rows: the dispatch by type and row sizes.
#include "attnviz/io/gguf/gguf_quantize.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/half_float.hpp"
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

}  // namespace attnviz
