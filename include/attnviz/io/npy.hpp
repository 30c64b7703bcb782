// NumPy .npy arrays: read float32/float64 2-D arrays (C or Fortran order, either byte order), write float32.
#pragma once

#include <filesystem>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// Reads a 2-D '<f4', '>f4', '<f8' or '>f8' array (fortran_order true or false) as float32.
// Throws Error naming the file and the offending header field (magic, version, descr, shape, size).
Matrix read_npy(const std::filesystem::path& path);

// Writes a 2-D little-endian float32 C-order array atomically (version 1.0 header, 64-byte aligned).
void write_npy(const std::filesystem::path& path, const Matrix& m);

}  // namespace attnviz
