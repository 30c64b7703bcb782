// safetensors reader: maps the file read-only, validates it once (safetensors_header.cpp), and
// converts F32/F16/BF16/F64 tensors to float32 on load.
#include "attnviz/io/safetensors.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "attnviz/core/error.hpp"
#include "half_float.hpp"
#include "mapped_file.hpp"
#include "safetensors_header.hpp"

namespace attnviz {

// The format is little-endian; reading values with memcpy is only correct on a little-endian host.
static_assert(std::endian::native == std::endian::little, "attnviz assumes a little-endian host");
// F64 → F32 relies on IEEE conversion (overflow gives ±inf, not undefined behaviour).
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

namespace detail {
namespace {

template <typename Source, typename Convert>
void convert_into(std::vector<float>& out, const char* src, Convert convert) {
  for (size_t i = 0; i < out.size(); ++i) {
    Source v;
    std::memcpy(&v, src + i * sizeof(Source), sizeof(Source));  // data may be unaligned
    out[i] = convert(v);
  }
}

}  // namespace
}  // namespace detail

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

Tensor SafetensorsFile::load(const std::string& name) const {
  const TensorInfo* info = find(name);
  if (!info) {
    throw Error(fmt::format("{}: no tensor named '{}' (the file has {} tensors)",
                            impl_->path.string(), name, impl_->layout.tensors.size()));
  }
  const uint64_t elem = detail::safetensors_dtype_size(info->dtype);
  const char* src = impl_->map.bytes().data() + impl_->layout.data_start + info->begin;
  Tensor t;
  t.shape = info->shape;
  // Validation proved (end - begin) == shape product × elem, so this is the element count.
  const auto n = static_cast<size_t>((info->end - info->begin) / elem);
  const std::string& dtype = info->dtype;
  if (dtype != "F32" && dtype != "F16" && dtype != "BF16" && dtype != "F64") {
    throw Error(
        fmt::format("{}: tensor '{}' has dtype {}; only F32, F16, BF16 and F64 can be loaded "
                    "as float32",
                    impl_->path.string(), name, dtype));
  }
  t.data.resize(n);
  if (dtype == "F32") {
    if (n > 0) std::memcpy(t.data.data(), src, n * sizeof(float));
  } else if (dtype == "F16") {
    detail::convert_into<uint16_t>(t.data, src, detail::f16_to_f32);
  } else if (dtype == "BF16") {
    detail::convert_into<uint16_t>(t.data, src, detail::bf16_to_f32);
  } else {
    detail::convert_into<double>(t.data, src, [](double v) { return static_cast<float>(v); });
  }
  return t;
}

}  // namespace attnviz
