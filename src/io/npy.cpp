// NumPy .npy reader (2-D f4/f8, C or Fortran order, either byte order) and float32 writer.
// Format: numpy/lib/format.py — magic, version, header length, a Python dict literal, raw data.
#include "attnviz/io/npy.hpp"

#include <fmt/format.h>

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

// Reads one value of type T (float or double) stored with the given byte order.
template <typename T>
float read_value(const char* p, bool big_endian) {
  char raw[sizeof(T)];
  std::memcpy(raw, p, sizeof(T));
  if (big_endian) std::reverse(raw, raw + sizeof(T));
  T v;
  std::memcpy(&v, raw, sizeof(T));
  return static_cast<float>(v);  // IEEE conversion: f64 values beyond float range become ±inf
}

// Decodes the data in file order into `values`, then places it: C order is row-major already;
// Fortran order is column-major, i.e. element (i, j) sits at j * rows + i.
Matrix decode(const detail::NpyHeader& h, const char* data) {
  const auto rows = static_cast<Eigen::Index>(h.rows);
  const auto cols = static_cast<Eigen::Index>(h.cols);
  std::vector<float> values(static_cast<size_t>(h.rows * h.cols));
  for (size_t k = 0; k < values.size(); ++k) {
    const char* p = data + k * h.item_size;
    values[k] =
        h.item_size == 4 ? read_value<float>(p, h.big_endian) : read_value<double>(p, h.big_endian);
  }
  if (h.fortran_order) {
    using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    return Eigen::Map<const ColMajor>(values.data(), rows, cols);
  }
  return Eigen::Map<const Matrix>(values.data(), rows, cols);
}

}  // namespace

Matrix read_npy(const std::filesystem::path& path) {
  const std::string bytes = read_regular_file(path.string(), k_max_npy_bytes);  // no FIFO, no device
  const std::string file = path.string();
  const detail::NpyHeader h = detail::parse_npy_header(bytes, file);
  // parse_npy_header checked rows × cols × item_size for overflow; now the data must match it.
  const uint64_t need = h.rows * h.cols * h.item_size;
  const uint64_t have = bytes.size() - h.data_start;
  if (have < need) {
    throw Error(
        fmt::format("{}: data is {} bytes but shape ({}, {}) of '{}' needs {} (file "
                    "truncated?)",
                    file, have, h.rows, h.cols, h.descr, need));
  }
  if (have > need) {
    throw Error(
        fmt::format("{}: data is {} bytes but shape ({}, {}) of '{}' needs {}: {} trailing "
                    "bytes",
                    file, have, h.rows, h.cols, h.descr, need, have - need));
  }
  return decode(h, bytes.data() + h.data_start);
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
