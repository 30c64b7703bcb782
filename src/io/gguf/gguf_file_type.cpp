// The table of llama.h's enum llama_ftype: what general.file_type says the file mostly holds
// (llama_model_quantize writes it; "mostly": 1-D tensors such as norms stay F32).
#include "attnviz/io/gguf/gguf_file_type.hpp"

#include <array>
#include <string_view>

namespace attnviz {

std::string llama_file_type_name(uint64_t file_type) {
  // Index = value; empty entries are numbers llama.h removed (Q4_2, Q4_3, the Q4_0_N_M repacks).
  static constexpr std::array<std::string_view, 40> names = {"ALL_F32",
                                                             "MOSTLY_F16",
                                                             "MOSTLY_Q4_0",
                                                             "MOSTLY_Q4_1",
                                                             "MOSTLY_Q4_1_SOME_F16",
                                                             "",
                                                             "",
                                                             "MOSTLY_Q8_0",
                                                             "MOSTLY_Q5_0",
                                                             "MOSTLY_Q5_1",
                                                             "MOSTLY_Q2_K",
                                                             "MOSTLY_Q3_K_S",
                                                             "MOSTLY_Q3_K_M",
                                                             "MOSTLY_Q3_K_L",
                                                             "MOSTLY_Q4_K_S",
                                                             "MOSTLY_Q4_K_M",
                                                             "MOSTLY_Q5_K_S",
                                                             "MOSTLY_Q5_K_M",
                                                             "MOSTLY_Q6_K",
                                                             "MOSTLY_IQ2_XXS",
                                                             "MOSTLY_IQ2_XS",
                                                             "MOSTLY_Q2_K_S",
                                                             "MOSTLY_IQ3_XS",
                                                             "MOSTLY_IQ3_XXS",
                                                             "MOSTLY_IQ1_S",
                                                             "MOSTLY_IQ4_NL",
                                                             "MOSTLY_IQ3_S",
                                                             "MOSTLY_IQ3_M",
                                                             "MOSTLY_IQ2_S",
                                                             "MOSTLY_IQ2_M",
                                                             "MOSTLY_IQ4_XS",
                                                             "MOSTLY_IQ1_M",
                                                             "MOSTLY_BF16",
                                                             "",
                                                             "",
                                                             "",
                                                             "MOSTLY_TQ1_0",
                                                             "MOSTLY_TQ2_0",
                                                             "MOSTLY_MXFP4_MOE",
                                                             "MOSTLY_NVFP4"};
  if (file_type == 1024) return "GUESSED";
  return file_type < names.size() ? std::string(names[file_type]) : std::string();
}

}  // namespace attnviz
