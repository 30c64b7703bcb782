// GgufWriter: the GGUF v3 layout of llama.cpp's gguf.cpp writer — header, key/value pairs, tensor
// infos, padding to general.alignment, then each tensor's data padded to the alignment — with the
// tensors converted on add and the finished bytes checked by the reader before they are written.
#include "attnviz/io/gguf/gguf_write.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "gguf_dequant.hpp"
#include "gguf_header.hpp"

namespace attnviz {
namespace {

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

void put_value(std::string& out, const GgufValue& v) {
  if (v.is_array) {
    put<uint32_t>(out, static_cast<uint32_t>(GgufValueType::Array));
    put<uint32_t>(out, static_cast<uint32_t>(v.type));
    put<uint64_t>(out, v.count);
  } else {
    put<uint32_t>(out, static_cast<uint32_t>(v.type));
  }
  if (v.type == GgufValueType::String) {
    for (const std::string& s : v.strings) put_string(out, s);
  } else {
    out.append(reinterpret_cast<const char*>(v.bytes.data()), v.bytes.size());
  }
}

uint32_t u32_of(const GgufValue& v) {
  uint32_t x;
  std::memcpy(&x, v.bytes.data(), 4);
  return x;
}

void pad_to(std::string& out, uint64_t alignment) {
  out.append((alignment - out.size() % alignment) % alignment, '\0');
}

// Refuses a conversion that turned finite values into inf or NaN (an F16 overflow, a block scale
// beyond F16's range): writing it would make the file say something the caller did not.
void check_representable(const std::string& name, uint32_t type, std::span<const float> values,
                         const std::vector<unsigned char>& data, int64_t row_length) {
  if (type == static_cast<uint32_t>(GgmlType::F32) || values.empty()) return;
  const uint64_t row_bytes = ggml_row_bytes(type, row_length);
  std::vector<float> row(static_cast<size_t>(row_length));
  for (size_t r = 0; r < values.size() / row.size(); ++r) {
    detail::dequantize_blocks(type, data.data() + r * row_bytes, row_length, row.data());
    for (size_t i = 0; i < row.size(); ++i) {
      const float x = values[r * row.size() + i];
      if (std::isfinite(x) && !std::isfinite(row[i])) {
        throw Error(
            fmt::format("GGUF writer: tensor '{}' element {} ({}) becomes {} in {}: the "
                        "values are beyond what the type holds (F16 scales reach 65504)",
                        name, r * row.size() + i, x, row[i], ggml_type_name(type)));
      }
    }
  }
}

}  // namespace

void GgufWriter::set(const std::string& key, GgufValue value) {
  if (key.empty()) throw Error("GGUF writer: an empty metadata key");
  if (key == "general.alignment" &&
      (value.type != GgufValueType::U32 || value.is_array || value.bytes.size() != 4 ||
       !std::has_single_bit(u32_of(value)))) {
    throw Error("GGUF writer: general.alignment must be a u32 power of two");
  }
  const auto same = [&](const auto& kv) { return kv.first == key; };
  const auto it = std::find_if(metadata_.begin(), metadata_.end(), same);
  if (it != metadata_.end())
    it->second = std::move(value);
  else
    metadata_.emplace_back(key, std::move(value));
}

uint64_t GgufWriter::alignment() const {
  for (const auto& [key, value] : metadata_) {
    if (key == "general.alignment") return u32_of(value);  // set() checked it
  }
  return detail::k_gguf_default_alignment;
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<int64_t>& dims,
                            uint32_t type, std::span<const float> values) {
  if (name.empty() || name.size() >= detail::k_ggml_max_name) {
    throw Error(fmt::format("GGUF writer: tensor name '{}' must have 1 to {} bytes", name,
                            detail::k_ggml_max_name - 1));
  }
  for (const Tensor& t : tensors_) {
    if (t.name == name) throw Error("GGUF writer: tensor '" + name + "' is added twice");
  }
  if (dims.empty() || dims.size() > detail::k_ggml_max_dims) {
    throw Error(fmt::format("GGUF writer: tensor '{}' has {} dimensions, expected 1 to {}", name,
                            dims.size(), detail::k_ggml_max_dims));
  }
  uint64_t n = 1;
  for (const int64_t d : dims) {
    if (d < 0 || (d > 0 && n > UINT64_MAX / static_cast<uint64_t>(d))) {
      throw Error(fmt::format("GGUF writer: tensor '{}' has dims [{}]: negative or too large", name,
                              fmt::join(dims, ", ")));
    }
    n *= static_cast<uint64_t>(d);
  }
  if (n != values.size()) {
    throw Error(
        fmt::format("GGUF writer: tensor '{}' has dims [{}] ({} values) but {} values "
                    "were given",
                    name, fmt::join(dims, ", "), n, values.size()));
  }
  std::vector<unsigned char> data = quantize_rows(type, values, dims[0]);
  check_representable(name, type, values, data, dims[0]);
  tensors_.push_back({name, dims, type, std::move(data)});
}

std::string GgufWriter::bytes() const {
  const uint64_t align = alignment();
  std::string out = "GGUF";
  put<uint32_t>(out, 3);
  put<int64_t>(out, static_cast<int64_t>(tensors_.size()));
  put<int64_t>(out, static_cast<int64_t>(metadata_.size()));
  for (const auto& [key, value] : metadata_) {
    put_string(out, key);
    put_value(out, value);
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
    for (const int64_t d : t.dims) put<int64_t>(out, d);
    put<uint32_t>(out, t.type);
    put<uint64_t>(out, offset);
    offset += t.data.size() + (align - t.data.size() % align) % align;
  }
  pad_to(out, align);
  for (const Tensor& t : tensors_) {
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
    pad_to(out, align);
  }
  detail::parse_gguf(out, "GGUF writer output");  // never write a file the reader would refuse
  return out;
}

void GgufWriter::write(const std::filesystem::path& path) const {
  write_file_atomically(path, bytes());
}

}  // namespace attnviz
