// GGUF tensor infos (name, dims, type, offset) with gguf.cpp's checks, then the data layout: the
// section starts at the next multiple of the alignment, every offset equals the running total of
// the padded sizes before it, and every tensor's bytes end inside the file.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <set>

#include "attnviz/core/error.hpp"
#include "gguf_header.hpp"
#include "gguf_types.hpp"

namespace attnviz::detail {
namespace {

std::string read_name(GgufCursor& in, uint64_t i, std::set<std::string>& seen) {
  std::string name = in.read_string(fmt::format("tensor {}'s name", i));
  if (name.size() >= k_ggml_max_name) {
    throw Error(
        fmt::format("{}: tensor {}'s name is {} bytes long, expected at most {} "
                    "(GGML_MAX_NAME {} with its NUL)",
                    in.file(), i, name.size(), k_ggml_max_name - 1, k_ggml_max_name));
  }
  if (!seen.insert(name).second) {
    throw Error(fmt::format("{}: duplicate tensor name '{}' (tensor {})", in.file(), name, i));
  }
  return name;
}

// dims[0..n_dims): none negative, and the product of the non-zero ones below INT64_MAX (gguf.cpp
// checks only tensors with elements; attnviz also refuses a zero dim hiding an overflow, since
// rows() multiplies the others).
std::vector<int64_t> read_dims(GgufCursor& in, const std::string& name) {
  const auto n_dims = in.read<uint32_t>(fmt::format("tensor '{}''s number of dimensions", name));
  if (n_dims > k_ggml_max_dims) {
    throw Error(fmt::format("{}: tensor '{}' has {} dimensions, expected at most {}", in.file(),
                            name, n_dims, k_ggml_max_dims));
  }
  std::vector<int64_t> dims(n_dims);
  int64_t product = 1;
  for (uint32_t j = 0; j < n_dims; ++j) {
    dims[j] = in.read<int64_t>(fmt::format("tensor '{}''s dimension {}", name, j));
    if (dims[j] < 0) {
      throw Error(fmt::format("{}: tensor '{}' dimension {} is {}, expected >= 0", in.file(), name,
                              j, dims[j]));
    }
    if (dims[j] > 0 && product >= std::numeric_limits<int64_t>::max() / dims[j]) {
      throw Error(
          fmt::format("{}: tensor '{}' has dims [{}, ...]: the number of elements "
                      "overflows int64",
                      in.file(), name, fmt::join(dims.begin(), dims.begin() + j + 1, ", ")));
    }
    if (dims[j] > 0) product *= dims[j];
  }
  return dims;
}

// The type number: in range, not a removed type, and the row length a whole number of blocks.
uint32_t read_type(GgufCursor& in, const std::string& name, int64_t row_length) {
  const auto raw = in.read<int32_t>(fmt::format("tensor '{}''s type", name));
  const GgmlTypeTraits* t = raw < 0 ? nullptr : ggml_type_traits(static_cast<uint32_t>(raw));
  if (!t) {
    throw Error(fmt::format("{}: tensor '{}' has ggml type {}, expected 0 to {}", in.file(), name,
                            raw, k_ggml_type_count - 1));
  }
  if (!t->name) {
    throw Error(
        fmt::format("{}: tensor '{}' has ggml type {}, a type removed from GGUF "
                    "(llama.cpp refuses it too)",
                    in.file(), name, raw));
  }
  if (row_length % t->block != 0) {
    throw Error(
        fmt::format("{}: tensor '{}' of type {} has rows of {} elements, not a multiple "
                    "of its block size {}",
                    in.file(), name, t->name, row_length, t->block));
  }
  return static_cast<uint32_t>(raw);
}

uint64_t elements(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (const int64_t d : dims) n *= static_cast<uint64_t>(d);  // read_dims bounded the product
  return n;
}

}  // namespace

void read_gguf_tensor_infos(GgufCursor& in, uint64_t n_tensors, GgufLayout& layout) {
  std::set<std::string> seen;
  layout.tensors.reserve(n_tensors);
  for (uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensorInfo info;
    info.name = read_name(in, i, seen);
    info.dims = read_dims(in, info.name);
    info.type = read_type(in, info.name, info.row_length());
    const GgmlTypeTraits* t = ggml_type_traits(info.type);
    const uint64_t blocks = elements(info.dims) / static_cast<uint64_t>(t->block);
    if (blocks > std::numeric_limits<uint64_t>::max() / t->block_bytes) {
      throw Error(
          fmt::format("{}: tensor '{}' of type {} with dims [{}] has a size in bytes "
                      "beyond 2^64",
                      in.file(), info.name, t->name, fmt::join(info.dims, ", ")));
    }
    info.bytes = blocks * t->block_bytes;
    info.offset = in.read<uint64_t>(fmt::format("tensor '{}''s offset", info.name));
    layout.tensors.push_back(std::move(info));
  }
}

void check_gguf_data_layout(const GgufCursor& in, GgufLayout& layout) {
  const uint64_t align = layout.alignment;
  const auto pad = [align](uint64_t x) { return x + (align - x % align) % align; };
  layout.data_offset = in.position();
  if (layout.tensors.empty()) return;  // gguf.cpp seeks to the padded start only with tensors
  if (pad(in.position()) > in.size()) {
    throw Error(
        fmt::format("{}: the data section starts at offset {} (the header end {} padded "
                    "to {}), past the end of the file ({} bytes)",
                    in.file(), pad(in.position()), in.position(), align, in.size()));
  }
  layout.data_offset = pad(in.position());
  const uint64_t room = in.size() - layout.data_offset;
  uint64_t expected = 0;
  for (const GgufTensorInfo& t : layout.tensors) {
    if (t.offset != expected) {
      throw Error(
          fmt::format("{}: tensor '{}' has offset {}, expected {} (the sizes of the "
                      "tensors before it, each padded to the alignment {})",
                      in.file(), t.name, t.offset, expected, align));
    }
    if (t.bytes > room || t.offset > room - t.bytes) {
      throw Error(
          fmt::format("{}: tensor '{}' ({} bytes at data offset {}) ends past the end of "
                      "the file: the data section holds {} bytes",
                      in.file(), t.name, t.bytes, t.offset, room));
    }
    expected = pad(t.offset + t.bytes);  // ≤ file size + align: no overflow
  }
}

}  // namespace attnviz::detail
