// Private to src/io: parsing and validation of a .npy preamble and header dict
// (numpy/lib/format.py), kept apart from the data decoding in npy.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnviz::detail {

// Every .npy file starts with these 6 bytes.
inline constexpr std::string_view k_npy_magic = "\x93NUMPY";

// A validated header of a 2-D float array.
struct NpyHeader {
  std::string descr;        // as written: "<f4", ">f8", "=f4", ...
  bool big_endian = false;  // '>'; '<' and '=' (native, and hosts are little-endian) are little
  uint64_t item_size = 0;   // 4 (f4) or 8 (f8)
  bool fortran_order = false;
  uint64_t rows = 0;
  uint64_t cols = 0;        // rows × cols × item_size is known not to overflow
  uint64_t data_start = 0;  // file offset of the first data byte
};

// Checks magic, version (1.0, 2.0, 3.0), header length and the dict's keys and values.
// Throws Error naming `file` and the offending field; the data size is left to the caller.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& file);

}  // namespace attnviz::detail
