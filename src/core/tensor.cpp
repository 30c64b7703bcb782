// Formatting of tensor shapes for error messages and listings.
#include "attnviz/core/tensor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace attnviz {

std::string shape_string(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace attnviz
