// The --html page's data blocks: byte planes compressed by libdeflate, base64-encoded.
#include "html_blob.hpp"

#include <libdeflate.h>

#include <memory>

#include "attnviz/core/base64.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz::detail {

std::string zlib_base64(std::string_view input, size_t element_size) {
  std::string planes;
  std::string_view bytes = input;
  if (element_size > 1) {
    const size_t n = input.size() / element_size;
    planes.resize(input.size());
    for (size_t i = 0; i < n; ++i) {
      for (size_t b = 0; b < element_size; ++b) planes[b * n + i] = input[i * element_size + b];
    }
    bytes = planes;
  }
  struct Free {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
  };
  // Level 6: float16 planes of attention weights, measured, shrink within 2 % of level 9's size.
  const std::unique_ptr<libdeflate_compressor, Free> c(libdeflate_alloc_compressor(6));
  if (!c) throw Error("--html: out of memory for the compressor");
  std::string packed(libdeflate_zlib_compress_bound(c.get(), bytes.size()), '\0');
  const size_t n =
      libdeflate_zlib_compress(c.get(), bytes.data(), bytes.size(), packed.data(), packed.size());
  if (n == 0) throw Error("--html: compressing a map failed");
  packed.resize(n);
  return base64_encode(packed);
}

}  // namespace attnviz::detail
