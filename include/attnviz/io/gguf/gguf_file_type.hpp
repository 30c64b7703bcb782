// general.file_type's values named as llama.cpp's enum llama_ftype (llama.h) names them.
#pragma once

#include <cstdint>
#include <string>

namespace attnviz {

// "ALL_F32", "MOSTLY_Q4_K_M", ...; "" for a number llama.h does not name (removed or newer).
std::string llama_file_type_name(uint64_t file_type);

}  // namespace attnviz
