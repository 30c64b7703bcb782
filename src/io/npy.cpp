// NumPy .npy reader (2-D f4/f8, C or Fortran order, either byte order) and float32 writer.
// Format: numpy/lib/format.py — magic, version, header length, a Python dict literal, raw data.
#include "attnviz/io/npy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/text_file.hpp"
#include "npy_header.hpp"

namespace attnviz {
namespace {

static_assert(std::endian::native == std::endian::little, "attnviz assumes a little-endian host");

// Data starts at a multiple of this (numpy's ARRAY_ALIGN), so it can be mapped and read aligned.
constexpr size_t k_align = 64;
// numpy leaves room for the growth axis to reach this many digits (GROWTH_AXIS_MAX_DIGITS), so the
// header can be rewritten in place; we do the same to write byte-identical files.
constexpr size_t k_growth_axis_digits = 21;

// .npy inputs are binary arrays, not text: a larger cap than text's, still bounded (a float64
// [16384, 16384] array is 2 GiB).
constexpr size_t k_max_npy_bytes = size_t{4} << 30;

// Reads one value of type T stored with the given byte order.
template <typename T>
T read_raw(const char* p, bool big_endian) {
  char raw[sizeof(T)];
  std::memcpy(raw, p, sizeof(T));
  if (big_endian) std::reverse(raw, raw + sizeof(T));
  T v;
  std::memcpy(&v, raw, sizeof(T));
  return v;
}

// One item of any dtype the header admits, widened to double: exact for bool, every integer up to
// 2^53 in magnitude, float32 and float64.
double read_item(const detail::NpyHeader& h, const char* p) {
  const bool be = h.big_endian;
  switch (h.kind) {
    case 'b':
      return *p != 0 ? 1.0 : 0.0;
    case 'f':
      return h.item_size == 4 ? read_raw<float>(p, be) : read_raw<double>(p, be);
    case 'i':
      switch (h.item_size) {
        case 1:
          return read_raw<int8_t>(p, be);
        case 2:
          return read_raw<int16_t>(p, be);
        case 4:
          return read_raw<int32_t>(p, be);
        default:
          return static_cast<double>(read_raw<int64_t>(p, be));
      }
    default:
      switch (h.item_size) {
        case 1:
          return read_raw<uint8_t>(p, be);
        case 2:
          return read_raw<uint16_t>(p, be);
        case 4:
          return read_raw<uint32_t>(p, be);
        default:
          return static_cast<double>(read_raw<uint64_t>(p, be));
      }
  }
}

// The item at C-order position k of a Fortran-order array: the first index varies fastest there.
uint64_t fortran_offset(const std::vector<int64_t>& shape, uint64_t k) {
  uint64_t offset = 0, stride = 1;
  std::vector<uint64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {  // C order: the last index varies fastest
    const auto n = static_cast<uint64_t>(shape[d]);
    index[d] = k % n;
    k /= n;
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    offset += index[d] * stride;
    stride *= static_cast<uint64_t>(shape[d]);
  }
  return offset;
}

// Reads the file, parses the header and checks the data size against the shape.
struct RawNpy {
  std::string bytes;
  detail::NpyHeader header;
};

RawNpy read_raw_npy(const std::filesystem::path& path, uint64_t max_bytes = k_max_npy_bytes) {
  RawNpy raw{read_regular_file(path.string(), static_cast<size_t>(max_bytes)),
             {}};  // no FIFO, no device
  const std::string file = path.string();
  const detail::NpyHeader& h = raw.header = detail::parse_npy_header(raw.bytes, file);
  const std::string shape = fmt::format("({})", fmt::join(h.shape, ", "));
  // parse_npy_header checked n_items × item_size for overflow; now the data must match it.
  const uint64_t need = h.n_items * h.item_size;
  const uint64_t have = raw.bytes.size() - h.data_start;
  if (have < need) {
    throw Error(fmt::format("{}: data is {} bytes but shape {} of '{}' needs {} (file truncated?)",
                            file, have, shape, h.descr, need));
  }
  if (have > need) {
    throw Error(fmt::format("{}: data is {} bytes but shape {} of '{}' needs {}: {} trailing bytes",
                            file, have, shape, h.descr, need, have - need));
  }
  return raw;
}

}  // namespace

NpyArray read_npy_array(const std::filesystem::path& path, const NpyShapeCheck& check,
                        uint64_t max_bytes) {
  RawNpy raw = read_raw_npy(path, max_bytes);
  const detail::NpyHeader& h = raw.header;
  if (check) check(h.shape, h.kind);  // before decoding the data
  NpyArray a{h.shape, h.kind, h.descr, std::vector<double>(h.n_items)};
  const char* data = raw.bytes.data() + h.data_start;
  for (uint64_t k = 0; k < h.n_items; ++k) {
    const uint64_t at = h.fortran_order ? fortran_offset(h.shape, k) : k;
    a.values[k] = read_item(h, data + at * h.item_size);
  }
  return a;
}

Matrix read_npy(const std::filesystem::path& path) {
  RawNpy raw = read_raw_npy(path);
  const detail::NpyHeader& h = raw.header;
  const std::string file = path.string();
  if (h.kind != 'f') {
    throw Error(fmt::format(
        "{}: unsupported npy descr '{}' (expected '<f4', '>f4', '<f8' or '>f8')", file, h.descr));
  }
  if (h.shape.size() != 2) {
    const std::string shape = h.shape.size() == 1 ? fmt::format("({},)", h.shape[0])
                                                  : fmt::format("({})", fmt::join(h.shape, ", "));
    throw Error(fmt::format("{}: npy shape {} is {}-D; attnviz reads 2-D arrays only", file, shape,
                            h.shape.size()));
  }
  const auto rows = static_cast<Eigen::Index>(h.shape[0]);
  const auto cols = static_cast<Eigen::Index>(h.shape[1]);
  // IEEE conversion: f64 values beyond float range become ±inf.
  std::vector<float> values(h.n_items);
  const char* data = raw.bytes.data() + h.data_start;
  for (uint64_t k = 0; k < h.n_items; ++k) {
    values[k] = static_cast<float>(read_item(h, data + k * h.item_size));
  }
  // Fortran order is column-major: element (i, j) sits at j * rows + i.
  if (h.fortran_order) {
    using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    return Eigen::Map<const ColMajor>(values.data(), rows, cols);
  }
  return Eigen::Map<const Matrix>(values.data(), rows, cols);
}

void write_npy(const std::filesystem::path& path, const Matrix& m) {
  // The dict exactly as numpy's _write_array_header prints it (keys sorted, repr values).
  std::string header = fmt::format(
      "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", m.rows(), m.cols());
  header.append(k_growth_axis_digits - std::to_string(m.rows()).size(), ' ');
  // numpy's _wrap_header: pad with spaces, end with '\n', data aligned to 64 (1..64 spaces).
  const size_t preamble =
      detail::k_npy_magic.size() + 2 + 2;  // magic, version 1.0, u16 header length
  header.append(k_align - (preamble + header.size() + 1) % k_align, ' ');
  header.push_back('\n');
  const auto header_len = static_cast<uint16_t>(header.size());  // < 200 bytes for a 2-D shape

  std::string out(detail::k_npy_magic);
  out.push_back('\x01');
  out.push_back('\x00');
  out.append(reinterpret_cast<const char*>(&header_len), sizeof header_len);  // little-endian
  out += header;
  // Matrix is row-major, so its storage is already C order.
  if (m.size() > 0) {
    out.append(reinterpret_cast<const char*>(m.data()),
               static_cast<size_t>(m.size()) * sizeof(float));
  }
  write_file_atomically(path, out);
}

}  // namespace attnviz
