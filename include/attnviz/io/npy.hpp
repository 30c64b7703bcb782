// NumPy .npy arrays: read float32/float64 2-D matrices and masks of any numeric dtype (C or Fortran
// order, either byte order), write float32.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// An array of any rank and numeric dtype, its values widened to double in C order (exact for bool,
// integers up to 2^53, float32 and float64) — for inputs whose dtype carries meaning, like masks.
struct NpyArray {
  std::vector<int64_t> shape;  // outermost first
  char kind = 'f';             // 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' float
  std::string descr;           // as written, for messages: "|b1", "<i8", "<f4", ...
  std::vector<double> values;
};
// Called with the shape and kind once the header is valid, before any data is decoded; throws to
// refuse.
using NpyShapeCheck = std::function<void(const std::vector<int64_t>& shape, char kind)>;

// Reads a bool ('|b1'), integer ('i1'…'i8', 'u1'…'u8') or float ('f4', 'f8') array of any rank,
// either byte order, C or Fortran order.
// Files larger than max_bytes are refused before they are read.
NpyArray read_npy_array(const std::filesystem::path& path, const NpyShapeCheck& check = {},
                        uint64_t max_bytes = uint64_t(4) << 30);

// Reads a 2-D '<f4', '>f4', '<f8' or '>f8' array (fortran_order true or false) as float32.
// Throws Error naming the file and the offending header field (magic, version, descr, shape, size).
Matrix read_npy(const std::filesystem::path& path);

// Writes a 2-D little-endian float32 C-order array atomically (version 1.0 header, 64-byte
// aligned).
void write_npy(const std::filesystem::path& path, const Matrix& m);

}  // namespace attnviz
