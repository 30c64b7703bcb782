// `attnviz inspect` on a GGUF file: the file itself (format, metadata, tensors, quantisation mix),
// read with the GGUF reader alone, so it works whether or not the file loads as a model.
// Private to src/cli/.
#pragma once

#include <filesystem>

#include "attnviz/model/locate/hf_cache.hpp"

namespace attnviz::detail {

// Prints the report to stdout; throws Error (naming the file) for a file the reader refuses.
void print_gguf(const ModelLocation& where);

}  // namespace attnviz::detail
