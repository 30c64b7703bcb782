// Bounded little-endian reads over the mapped bytes of a GGUF file: every read checks what is
// left first, so a truncated header is an Error naming what was being read and where.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "attnviz/core/error.hpp"

namespace attnviz::detail {

class GgufCursor {
 public:
  GgufCursor(std::string_view bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }
  uint64_t size() const { return bytes_.size(); }
  const std::string& file() const { return file_; }

  // n raw bytes; `what` names the field for the error ("tensor 3's name").
  std::string_view take(uint64_t n, const std::string& what) {
    if (n > remaining()) {
      throw Error(
          fmt::format("{}: truncated GGUF file: {} needs {} bytes at offset {}, "
                      "but only {} remain",
                      file_, what, n, pos_, remaining()));
    }
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  template <typename T>
  T read(const std::string& what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what).data(), sizeof(T));
    return value;
  }

  // A GGUF string: u64 length then bytes. Longer than the rest of the file is refused before
  // anything is allocated (gguf.cpp: "string length exceeds remaining file size").
  std::string read_string(const std::string& what) {
    const auto n = read<uint64_t>(what + "'s length");
    if (n > remaining()) {
      throw Error(
          fmt::format("{}: {} has length {} at offset {}, beyond the end of the file "
                      "({} bytes remain)",
                      file_, what, n, pos_ - 8, remaining()));
    }
    return std::string(take(n, what));
  }

 private:
  std::string_view bytes_;
  const std::string& file_;
  uint64_t pos_ = 0;
};

}  // namespace attnviz::detail
