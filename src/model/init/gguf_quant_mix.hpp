// The tensor types llama.cpp's llama-quantize gives each tensor of a file for a target file type
// (src/llama-quant.cpp's llama_tensor_get_type, without an imatrix), so `init --gguf` writes its
// mixes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnviz::detail {

struct GgufFileType {
  const char* name;      // as llama-quantize spells it: "Q4_K_M"
  uint32_t llama_ftype;  // general.file_type (llama.h's enum llama_ftype)
  uint32_t base;         // the GgmlType most tensors get (llama_ftype_get_default_type)
};

// The type named (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K_M, Q4_K_M, Q5_K_M,
// Q6_K); nullptr for any other name.
const GgufFileType* gguf_file_type(const std::string& name);
std::string gguf_file_type_names();  // "F32, F16, …", for messages

struct MixTensor {
  std::string name;           // llama.cpp's name ("blk.0.attn_v.weight")
  std::vector<int64_t> dims;  // ggml order: dims[0] is the row length
};
struct MixModel {
  int n_layer = 0, n_head = 0, n_head_kv = 0;
};

// One GgmlType per tensor, in the order given (llama.cpp counts attn_v tensors in file order).
std::vector<uint32_t> llama_quant_types(const std::vector<MixTensor>& tensors,
                                        const MixModel& model, const GgufFileType& type);

}  // namespace attnviz::detail
