// safetensors reader: maps the file read-only, validates it once (safetensors_header.cpp), and
// converts F32/F16/BF16/F64 tensors to float32 on load.
#include "attnviz/io/safetensors.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "attnviz/core/error.hpp"
#include "attnviz/io/half_float.hpp"
#include "attnviz/io/mapped_file.hpp"
#include "safetensors_header.hpp"

namespace attnviz {

// The format is little-endian; reading values with memcpy is only correct on a little-endian host.
static_assert(std::endian::native == std::endian::little, "attnviz assumes a little-endian host");
// F64 → F32 relies on IEEE conversion (overflow gives ±inf, not undefined behaviour).
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

namespace detail {
namespace {

template <typename Source, typename Convert>
void convert_into(float* out, size_t n, const char* src, Convert convert) {
  for (size_t i = 0; i < n; ++i) {
    Source v;
    std::memcpy(&v, src + i * sizeof(Source), sizeof(Source));  // data may be unaligned
    out[i] = convert(v);
  }
}

}  // namespace
}  // namespace detail

std::optional<FloatDtype> float_dtype(std::string_view name) {
  if (name == "F32") return FloatDtype::f32;
  if (name == "F16") return FloatDtype::f16;
  if (name == "BF16") return FloatDtype::bf16;
  if (name == "F64") return FloatDtype::f64;
  return std::nullopt;
}

size_t dtype_bytes(FloatDtype dtype) {
  switch (dtype) {
    case FloatDtype::f32:
      return 4;
    case FloatDtype::f16:
    case FloatDtype::bf16:
      return 2;
    case FloatDtype::f64:
      return 8;
  }
  return 0;
}

void convert_to_float(FloatDtype dtype, const char* src, size_t n, float* out) {
  switch (dtype) {
    case FloatDtype::f32:
      if (n > 0) std::memcpy(out, src, n * sizeof(float));
      return;
    case FloatDtype::f16:
      return detail::convert_into<uint16_t>(out, n, src, f16_to_f32);
    case FloatDtype::bf16:
      return detail::convert_into<uint16_t>(out, n, src, bf16_to_f32);
    case FloatDtype::f64:
      return detail::convert_into<double>(out, n, src,
                                          [](double v) { return static_cast<float>(v); });
  }
}

void release_mapped(const char* data, size_t bytes) {
  if (bytes == 0) return;
  // Whole pages around the range: a neighbour's page dropped too only faults back in when read.
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data) / page * page;
  const auto end = reinterpret_cast<uintptr_t>(data) + bytes;
  // Advice only: a failure leaves the pages resident, never the values wrong.
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

struct SafetensorsFile::Impl {
  std::filesystem::path path;
  detail::MappedFile map;
  detail::SafetensorsLayout layout;
  std::map<std::string, size_t> index;  // name → position in layout.tensors
};

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
  detail::MappedFile map(path);
  detail::SafetensorsLayout layout = detail::validate_safetensors(map.bytes(), path.string());
  auto impl = std::make_unique<Impl>(Impl{path, std::move(map), std::move(layout), {}});
  for (size_t i = 0; i < impl->layout.tensors.size(); ++i) {
    impl->index.emplace(impl->layout.tensors[i].name, i);
  }
  return SafetensorsFile(std::move(impl));
}

SafetensorsFile::SafetensorsFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

const std::filesystem::path& SafetensorsFile::path() const {
  return impl_->path;
}

const std::vector<TensorInfo>& SafetensorsFile::tensors() const {
  return impl_->layout.tensors;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = impl_->index.find(name);
  return it == impl_->index.end() ? nullptr : &impl_->layout.tensors[it->second];
}

const std::map<std::string, std::string>& SafetensorsFile::metadata() const {
  return impl_->layout.metadata;
}

StoredTensor SafetensorsFile::stored(const std::string& name) const {
  const TensorInfo* info = find(name);
  if (!info) {
    throw Error(fmt::format("{}: no tensor named '{}' (the file has {} tensors)",
                            impl_->path.string(), name, impl_->layout.tensors.size()));
  }
  const auto dtype = float_dtype(info->dtype);
  if (!dtype) {
    throw Error(
        fmt::format("{}: tensor '{}' has dtype {}; only F32, F16, BF16 and F64 can be loaded "
                    "as float32",
                    impl_->path.string(), name, info->dtype));
  }
  return {*dtype, info->shape, impl_->map.bytes().data() + impl_->layout.data_start + info->begin};
}

Tensor SafetensorsFile::load(const std::string& name) const {
  const StoredTensor s = stored(name);
  const TensorInfo& info = *find(name);
  Tensor t;
  t.shape = s.shape;
  // Validation proved (end - begin) == shape product × element size.
  const uint64_t bytes = info.end - info.begin;
  t.data.resize(static_cast<size_t>(bytes / dtype_bytes(s.dtype)));
  convert_to_float(s.dtype, s.data, t.data.size(), t.data.data());
  release_mapped(s.data, static_cast<size_t>(bytes));
  return t;
}

}  // namespace attnviz
