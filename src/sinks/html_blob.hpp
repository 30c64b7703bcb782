// The byte blobs of the --html page: zlib-compressed (libdeflate), then base64, so that the page's
// script inflates them with the browser's DecompressionStream("deflate").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz::detail {

// element_size > 1: the bytes of an array of such elements are stored byte plane by byte plane (all
// first bytes, then all second bytes, …), which deflate packs tighter: the exponent bytes of
// float16 weights repeat, their low mantissa bytes do not.
std::string zlib_base64(std::string_view bytes, size_t element_size = 1);

// A vector's bytes (little-endian on every machine attnviz builds for: x86-64 and aarch64).
template <class T>
std::string_view bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}
// An array's blob, byte planes split by its element size.
template <class T>
std::string array_blob(const std::vector<T>& v) {
  return zlib_base64(bytes_of(v), sizeof(T));
}

}  // namespace attnviz::detail
