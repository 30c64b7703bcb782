// Fuzzes the sharded-checkpoint index (model.safetensors.index.json) through TensorSource::open on
// a folder holding the input and one small valid shard, shard-00001.safetensors.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path dir =
      attnviz::fuzz::folder_with_weights("sharded", "shard-00001.safetensors", {});
  attnviz::fuzz::write_input("sharded/model.safetensors.index.json", data, size);
  try {
    const auto source = attnviz::TensorSource::open(dir);
    for (const auto& name : source.names()) (void)source.info(name);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
