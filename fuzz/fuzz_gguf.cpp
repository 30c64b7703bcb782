// Fuzzes the GGUF reader: validation from bytes, then open + dequantisation of every tensor of a
// type attnviz converts, whole and by rows, as loading a layer would. attnviz::Error is the
// expected refusal.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "fuzz_input.hpp"
#include "io/gguf/gguf_header.hpp"

namespace {

// True when the bytes alone are refused: then the file reader must refuse them too, and there is
// nothing more to learn from this input.
bool refused_from_bytes(const uint8_t* data, size_t size) {
  try {
    attnviz::detail::parse_gguf({reinterpret_cast<const char*>(data), size}, "input");
    return false;
  } catch (const attnviz::Error&) {
    return true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (refused_from_bytes(data, size)) return 0;
  try {
    const auto file = attnviz::GgufFile::open(attnviz::fuzz::write_input("in.gguf", data, size));
    for (const auto& t : file.tensors()) {
      if (!attnviz::ggml_type_dequantizable(t.type)) continue;
      (void)file.dequantize(t);
      if (t.rows() > 1) {
        std::vector<float> row(static_cast<size_t>(t.row_length()));
        file.dequantize_rows(t, t.rows() - 1, t.rows(), row.data());
      }
    }
    (void)file.metadata().get<std::string>("general.architecture");
  } catch (const attnviz::Error&) {
  }
  return 0;
}
