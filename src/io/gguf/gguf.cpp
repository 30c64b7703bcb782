// GgufFile: maps the file, validates it once (gguf_header.cpp), and dequantises tensors by rows.
#include "attnviz/io/gguf/gguf.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <fstream>

#include "attnviz/core/error.hpp"
#include "attnviz/io/mapped_file.hpp"
#include "gguf_dequant.hpp"
#include "gguf_header.hpp"
#include "gguf_types.hpp"

namespace attnviz {

// GGUF is little-endian (big-endian files are refused by their version); reads use memcpy.
static_assert(std::endian::native == std::endian::little, "attnviz assumes a little-endian host");

bool is_gguf_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

int64_t GgufTensorInfo::rows() const {
  int64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i) n *= dims[i];  // bounded on read (read_dims)
  return n;
}

struct GgufFile::Impl {
  std::filesystem::path path;
  detail::MappedFile map;
  detail::GgufLayout layout;
  GgufMetadata metadata;
  std::map<std::string, size_t> index;  // name → position in layout.tensors
};

GgufFile GgufFile::open(const std::filesystem::path& path) {
  detail::MappedFile map(path);
  detail::GgufLayout layout = detail::parse_gguf(map.bytes(), path.string());
  GgufMetadata metadata(path.string(), std::move(layout.metadata));
  auto impl = std::make_unique<Impl>(
      Impl{path, std::move(map), std::move(layout), std::move(metadata), {}});
  for (size_t i = 0; i < impl->layout.tensors.size(); ++i) {
    impl->index.emplace(impl->layout.tensors[i].name, i);
  }
  return GgufFile(std::move(impl));
}

GgufFile::GgufFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;
GgufFile::~GgufFile() = default;

const std::filesystem::path& GgufFile::path() const {
  return impl_->path;
}
uint32_t GgufFile::version() const {
  return impl_->layout.version;
}
uint64_t GgufFile::alignment() const {
  return impl_->layout.alignment;
}
uint64_t GgufFile::data_offset() const {
  return impl_->layout.data_offset;
}
const GgufMetadata& GgufFile::metadata() const {
  return impl_->metadata;
}
const std::vector<GgufTensorInfo>& GgufFile::tensors() const {
  return impl_->layout.tensors;
}

const GgufTensorInfo* GgufFile::find(const std::string& name) const {
  const auto it = impl_->index.find(name);
  return it == impl_->index.end() ? nullptr : &impl_->layout.tensors[it->second];
}

std::vector<float> GgufFile::dequantize(const GgufTensorInfo& tensor) const {
  std::vector<float> out(static_cast<size_t>(tensor.rows() * tensor.row_length()));
  dequantize_rows(tensor, 0, tensor.rows(), out.data());
  return out;
}

void GgufFile::dequantize_rows(const GgufTensorInfo& tensor, int64_t r0, int64_t r1,
                               float* out) const {
  const std::string& file = impl_->path.string();
  const GgufTensorInfo* known = find(tensor.name);
  if (!known || known->offset != tensor.offset || known->type != tensor.type ||
      known->dims != tensor.dims) {
    throw Error(fmt::format("{}: no tensor '{}' with that layout in this file", file, tensor.name));
  }
  if (!ggml_type_dequantizable(tensor.type)) {
    throw Error(
        fmt::format("{}: tensor '{}' has type {}, which attnviz cannot convert to float32 "
                    "(it reads F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, "
                    "Q4_K, Q5_K and Q6_K)",
                    file, tensor.name, ggml_type_name(tensor.type)));
  }
  if (r0 < 0 || r1 < r0 || r1 > tensor.rows()) {
    throw Error(fmt::format("{}: tensor '{}': rows [{}, {}) requested, it has {} rows", file,
                            tensor.name, r0, r1, tensor.rows()));
  }
  const detail::GgmlTypeTraits& t = *detail::ggml_type_traits(tensor.type);
  const auto row_bytes = static_cast<uint64_t>(tensor.row_length() / t.block) * t.block_bytes;
  const auto* src = reinterpret_cast<const unsigned char*>(impl_->map.bytes().data()) +
                    impl_->layout.data_offset + tensor.offset +
                    static_cast<uint64_t>(r0) * row_bytes;
  detail::dequantize_blocks(tensor.type, src, (r1 - r0) * tensor.row_length(), out);
}

const char* GgufFile::tensor_data(const GgufTensorInfo& tensor) const {
  return impl_->map.bytes().data() + impl_->layout.data_offset + tensor.offset;  // bounded on open
}

}  // namespace attnviz
