// GGUF header: magic, version (2 and 3; 1 refused by name), the tensor and key/value counts
// checked against the file size, then metadata, alignment, tensor infos and the data layout.
#include "gguf_header.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"

namespace attnviz::detail {
namespace {

constexpr uint32_t k_gguf_version = 3;  // the newest version llama.cpp writes and reads
// The fewest bytes a key/value pair (key length, type, a one-byte value) and a tensor info
// (name length, n_dims, type, offset) can take: counts that need more than the file are refused
// before any loop runs on them.
constexpr uint64_t k_min_kv_bytes = 8 + 4 + 1;
constexpr uint64_t k_min_tensor_info_bytes = 8 + 4 + 4 + 8;

void read_magic(GgufCursor& in) {
  const std::string_view magic = in.take(4, "the magic 'GGUF'");
  if (magic != "GGUF") {
    std::string shown;
    for (const char c : magic) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    throw Error(fmt::format("{}: not a GGUF file: magic '{}', expected 'GGUF'", in.file(), shown));
  }
}

uint32_t read_version(GgufCursor& in) {
  const auto version = in.read<uint32_t>("the version");
  if (version == 0) throw Error(fmt::format("{}: GGUF version 0 is not a version", in.file()));
  if ((version & 0xFFFFu) == 0) {
    throw Error(
        fmt::format("{}: GGUF version {:#x} is impossibly large: a file written on a "
                    "big-endian machine? (expected 2 or 3)",
                    in.file(), version));
  }
  if (version == 1) {
    throw Error(
        fmt::format("{}: GGUF version 1 is no longer supported (llama.cpp refuses it too); "
                    "expected version 2 or 3: convert the model again",
                    in.file()));
  }
  if (version > k_gguf_version) {
    throw Error(fmt::format("{}: GGUF version {} is newer than attnviz reads (expected 2 or 3)",
                            in.file(), version));
  }
  return version;
}

uint64_t read_count(GgufCursor& in, const char* what, uint64_t min_bytes_each) {
  const auto n = in.read<int64_t>(fmt::format("the number of {}", what));
  if (n < 0)
    throw Error(fmt::format("{}: the number of {} is {}, expected >= 0", in.file(), what, n));
  const auto count = static_cast<uint64_t>(n);
  if (count > in.remaining() / min_bytes_each) {
    throw Error(
        fmt::format("{}: the header claims {} {}, impossible in a file of {} bytes (each "
                    "takes at least {} bytes)",
                    in.file(), count, what, in.size(), min_bytes_each));
  }
  return count;
}

}  // namespace

GgufLayout parse_gguf(std::string_view bytes, const std::string& file) {
  GgufCursor in(bytes, file);
  GgufLayout layout;
  read_magic(in);
  layout.version = read_version(in);
  const uint64_t n_tensors = read_count(in, "tensors", k_min_tensor_info_bytes);
  const uint64_t n_kv = read_count(in, "metadata key/value pairs", k_min_kv_bytes);
  if (n_kv * k_min_kv_bytes + n_tensors * k_min_tensor_info_bytes > in.remaining()) {
    throw Error(
        fmt::format("{}: the header claims {} tensors and {} key/value pairs, impossible "
                    "in a file of {} bytes",
                    file, n_tensors, n_kv, in.size()));
  }
  read_gguf_metadata(in, n_kv, layout);
  read_gguf_tensor_infos(in, n_tensors, layout);
  check_gguf_data_layout(in, layout);
  return layout;
}

}  // namespace attnviz::detail
