// safetensors reader: maps the file read-only, validates it once (safetensors_header.cpp), and
// converts F32/F16/BF16/F64 tensors to float32 on load.
#include "attnviz/io/safetensors.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "attnviz/core/error.hpp"
#include "safetensors_header.hpp"

namespace attnviz {

// The format is little-endian; reading values with memcpy is only correct on a little-endian host.
static_assert(std::endian::native == std::endian::little, "attnviz assumes a little-endian host");
// F64 → F32 relies on IEEE conversion (overflow gives ±inf, not undefined behaviour).
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

namespace detail {
namespace {

// A whole file mapped read-only and private; unmapped on destruction. Empty files are not mapped
// (mmap rejects length 0) and read as zero bytes.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    // O_NONBLOCK: a FIFO would block open() until a writer came; fstat then refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) fail(path, "cannot open");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      errno = err;
      fail(path, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(fmt::format("{}: not a regular file", path.string()));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      const int err = errno;
      ::close(fd);  // the mapping stays valid after close
      errno = err;
      if (p == MAP_FAILED) fail(path, "cannot mmap");
      data_ = static_cast<const char*>(p);
    } else {
      ::close(fd);
    }
  }
  MappedFile(MappedFile&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  MappedFile& operator=(MappedFile&& o) noexcept {
    if (this != &o) {
      unmap();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { unmap(); }

  std::string_view bytes() const { return {data_ ? data_ : "", size_}; }

 private:
  [[noreturn]] static void fail(const std::filesystem::path& path, const char* what) {
    throw Error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
  }
  void unmap() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
    data_ = nullptr;
  }

  const char* data_ = nullptr;
  size_t size_ = 0;
};

// IEEE 754 binary16 → binary32. Every half value is exactly representable as a float, including
// subnormals (mant × 2^-24), so this is exact; NaN payloads are kept.
float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // inf, NaN
  if (exp != 0) {
    // Rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exp + 127 - 15) << 23) | (mant << 13));
  }
  const float magnitude = std::ldexp(static_cast<float>(mant), -24);  // subnormal or zero
  return sign ? -magnitude : magnitude;
}

// bfloat16 is the top half of a binary32, so widening is a shift.
float bf16_to_f32(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

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
