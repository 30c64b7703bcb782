// Private to src/io: parsing and validation of a .npy preamble and header dict
// (numpy/lib/format.py), kept apart from the data decoding in npy.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::detail {

// Every .npy file starts with these 6 bytes.
inline constexpr std::string_view k_npy_magic = "\x93NUMPY";

// A validated header of an n-D bool, integer or float array.
struct NpyHeader {
  std::string descr;        // as written: "<f4", ">f8", "=f4", "|b1", "<i8", ...
  char kind = 'f';          // 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' float
  bool big_endian = false;  // '>'; '<', '|' and '=' (native; hosts are little-endian) are little
  uint64_t item_size = 0;   // 1 (b1, i1, u1), 2, 4 or 8 bytes
  bool fortran_order = false;
  std::vector<int64_t> shape;  // outermost first; every dimension >= 0
  uint64_t n_items = 0;        // product of shape; n_items × item_size is known not to overflow
  uint64_t data_start = 0;     // file offset of the first data byte
};

// Checks magic, version (1.0, 2.0, 3.0), header length and the dict's keys and values.
// Throws Error naming `file` and the offending field; the data size is left to the caller.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& file);

}  // namespace attnviz::detail
