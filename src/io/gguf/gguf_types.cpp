// The ggml type table: names, block sizes and block bytes (ggml-common.h's block_* structs).
#include "gguf_types.hpp"

#include <array>
#include <string>

#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz {
namespace detail {
namespace {

constexpr int64_t k_qk_k = 256;  // QK_K: the super-block of the K-quants and i-quants

constexpr std::array<GgmlTypeTraits, k_ggml_type_count> k_types = {{
    {"F32", 1, 4},
    {"F16", 1, 2},
    {"Q4_0", 32, 2 + 16},                     // d; 32 nibbles
    {"Q4_1", 32, 2 + 2 + 16},                 // d, m; 32 nibbles
    {},                                       // 4: Q4_2, removed
    {},                                       // 5: Q4_3, removed
    {"Q5_0", 32, 2 + 4 + 16},                 // d; qh (the fifth bits); 32 nibbles
    {"Q5_1", 32, 2 + 2 + 4 + 16},             // d, m; qh; 32 nibbles
    {"Q8_0", 32, 2 + 32},                     // d; 32 int8
    {"Q8_1", 32, 2 + 2 + 32},                 // d, s; 32 int8
    {"Q2_K", k_qk_k, 16 + 64 + 2 + 2},        // scales; qs; d, dmin
    {"Q3_K", k_qk_k, 32 + 64 + 12 + 2},       // hmask; qs; scales; d
    {"Q4_K", k_qk_k, 2 + 2 + 12 + 128},       // d, dmin; scales; qs
    {"Q5_K", k_qk_k, 2 + 2 + 12 + 32 + 128},  // d, dmin; scales; qh; qs
    {"Q6_K", k_qk_k, 128 + 64 + 16 + 2},      // ql; qh; scales; d
    {"Q8_K", k_qk_k, 4 + 256 + 32},           // float d; qs; bsums
    {"IQ2_XXS", k_qk_k, 2 + 64},
    {"IQ2_XS", k_qk_k, 2 + 64 + 8},
    {"IQ3_XXS", k_qk_k, 2 + 96},
    {"IQ1_S", k_qk_k, 2 + 32 + 16},
    {"IQ4_NL", 32, 2 + 16},
    {"IQ3_S", k_qk_k, 2 + 64 + 8 + 32 + 4},
    {"IQ2_S", k_qk_k, 2 + 64 + 8 + 8},
    {"IQ4_XS", k_qk_k, 2 + 2 + 4 + 128},
    {"I8", 1, 1},
    {"I16", 1, 2},
    {"I32", 1, 4},
    {"I64", 1, 8},
    {"F64", 1, 8},
    {"IQ1_M", k_qk_k, 32 + 16 + 8},
    {"BF16", 1, 2},
    {},
    {},
    {},  // 31-33: Q4_0_4_4, Q4_0_4_8, Q4_0_8_8, removed
    {"TQ1_0", k_qk_k, 48 + 4 + 2},
    {"TQ2_0", k_qk_k, 64 + 2},
    {},
    {},
    {},                     // 36-38: IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8, removed
    {"MXFP4", 32, 1 + 16},  // e (E8M0); 32 nibbles
}};

}  // namespace

const GgmlTypeTraits* ggml_type_traits(uint32_t type) {
  return type < k_types.size() ? &k_types[type] : nullptr;
}

}  // namespace detail

std::string ggml_type_name(uint32_t type) {
  const detail::GgmlTypeTraits* t = detail::ggml_type_traits(type);
  return t && t->name ? std::string(t->name) : "type " + std::to_string(type);
}

bool ggml_type_dequantizable(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

std::string_view gguf_value_type_name(GgufValueType type) {
  static constexpr std::array<std::string_view, 13> names = {
      "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
  const auto i = static_cast<uint32_t>(type);
  return i < names.size() ? names[i] : std::string_view("unknown");
}

}  // namespace attnviz
