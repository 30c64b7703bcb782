// Fuzzes the safetensors reader: header validation from bytes, then open + load of every tensor
// from a file, as `attnviz inspect` / `run` would. attnviz::Error is the expected refusal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "fuzz_input.hpp"
#include "io/safetensors_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    attnviz::detail::validate_safetensors({reinterpret_cast<const char*>(data), size}, "input");
  } catch (const attnviz::Error&) {
    return 0;  // refused from bytes: the file reader must refuse it too, nothing more to learn
  }
  try {
    const auto file =
        attnviz::SafetensorsFile::open(attnviz::fuzz::write_input("in.safetensors", data, size));
    for (const auto& t : file.tensors()) (void)file.load(t.name);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
