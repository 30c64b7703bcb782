// safetensors writer: F32 tensors in the caller's order, the layout the reference reader expects
// (u64 header length, JSON header padded with spaces to a multiple of 8, contiguous data).
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/safetensors.hpp"
#include "safetensors_header.hpp"

namespace attnviz {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

uint64_t dtype_bytes(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16") return 2;
  throw Error(fmt::format("cannot write safetensors: dtype '{}' (writable: F32, F16)", dtype));
}

// Bytes of a tensor's data for its shape, rejecting negative dimensions and 64-bit overflow.
uint64_t byte_length(const TensorLayout& t) {
  uint64_t n = dtype_bytes(t.dtype);
  for (int64_t d : t.shape) {
    if (d < 0) {
      throw Error(fmt::format("cannot write safetensors: tensor '{}' has negative shape {}", t.name,
                              shape_string(t.shape)));
    }
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) {
      throw Error(fmt::format("cannot write safetensors: tensor '{}' shape {} overflows 64 bits",
                              t.name, shape_string(t.shape)));
    }
  }
  return n;
}

[[noreturn]] void header_too_large(uint64_t bytes,
                                   const std::map<std::string, std::string>& metadata,
                                   size_t n_tensors) {
  throw Error(
      fmt::format("cannot write safetensors: the header would be {} bytes or more, over "
                  "the {}-byte limit safetensors readers accept (metadata of {} entries, "
                  "{} tensors)",
                  bytes, k_safetensors_max_header, metadata.size(), n_tensors));
}

// The header JSON, unpadded. ordered_json keeps tensors in the caller's order (nlohmann::json
// would sort them), so the header lists them in data order as the reference writer does.
std::string header_json(const std::vector<TensorLayout>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  uint64_t metadata_bytes = 0;  // checked first: a 100 MB string is slow to turn into JSON
  for (const auto& [key, value] : metadata) {
    metadata_bytes += safetensors_json_string_bytes(key) + safetensors_json_string_bytes(value) + 2;
  }
  if (metadata_bytes > k_safetensors_max_header)
    header_too_large(metadata_bytes, metadata, tensors.size());
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const TensorLayout& t : tensors) {
    if (t.name == "__metadata__") {
      throw Error("cannot write safetensors: '__metadata__' is reserved and cannot name a tensor");
    }
    if (!names.insert(t.name).second) {
      throw Error(fmt::format("cannot write safetensors: duplicate tensor name '{}'", t.name));
    }
    const uint64_t n_bytes = byte_length(t);
    header[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + n_bytes}}};
    offset += n_bytes;
  }
  try {
    return header.dump();
  } catch (const nlohmann::ordered_json::type_error& e) {
    throw Error(
        fmt::format("cannot write safetensors: a tensor name or metadata string is not "
                    "valid UTF-8 ({})",
                    e.what()));
  }
}

}  // namespace

uint64_t safetensors_json_string_bytes(std::string_view text) {
  uint64_t n = text.size() + 2;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
      n += 1;
    } else if (c < 0x20) {
      n += 5;  // as a six-byte unicode escape
    }
  }
  return n;
}

std::string serialize_safetensors_header(const std::vector<TensorLayout>& tensors,
                                         const std::map<std::string, std::string>& metadata,
                                         uint64_t align) {
  std::string header = header_json(tensors, metadata);
  // Checked before anything is written: a file the reader (ours and the reference) would refuse.
  if (header.size() > k_safetensors_max_header)
    header_too_large(header.size(), metadata, tensors.size());
  // Pad with spaces (valid trailing JSON whitespace) so the data buffer starts `align`-aligned:
  // 8 + size ≡ 0 (mod align).
  align = std::max<uint64_t>(align, 1);
  const uint64_t used = (detail::k_safetensors_length_bytes + header.size()) % align;
  header.append(used == 0 ? 0 : align - used, ' ');
  // The padding counts too: readers refuse a padded header over the limit as any other.
  if (header.size() > k_safetensors_max_header)
    header_too_large(header.size(), metadata, tensors.size());
  const uint64_t n = header.size();
  std::string out(detail::k_safetensors_length_bytes, '\0');
  std::memcpy(out.data(), &n, sizeof n);  // little-endian host (static_assert above)
  return out + header;
}

std::string serialize_safetensors(const std::vector<TensorView>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  std::vector<TensorLayout> layouts;
  for (const TensorView& t : tensors) {
    layouts.push_back({t.name, t.shape, "F32"});
    if (byte_length(layouts.back()) > 0 && t.data == nullptr) {
      throw Error(fmt::format("cannot write safetensors: tensor '{}' {} has null data", t.name,
                              shape_string(t.shape)));
    }
  }
  std::string out = serialize_safetensors_header(layouts, metadata);
  for (size_t k = 0; k < tensors.size(); ++k) {
    const uint64_t n_bytes = byte_length(layouts[k]);
    if (n_bytes > 0) out.append(reinterpret_cast<const char*>(tensors[k].data), n_bytes);
  }
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  write_file_atomically(path, serialize_safetensors(tensors, metadata));
}

}  // namespace attnviz
