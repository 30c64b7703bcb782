// Where make_fixtures.py's PyTorch fixtures are, and the layout file that runs their Llama-shaped
// ones.
#pragma once

#include <filesystem>

#include "attnviz/core/matrix.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/model/config.hpp"

namespace attnviz::test {

inline const std::filesystem::path k_torch =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/torch";

// A 2-D fixture tensor as a matrix (row-major, as the file stores it).
inline Matrix as_matrix(const Tensor& t) {
  return Eigen::Map<const Matrix>(t.data.data(), t.shape.at(0), t.shape.at(1));
}

inline ConfigOverrides llama_layout() {
  ConfigOverrides o;
  o.layout_file = (k_torch / "llama_layout.json").string();
  return o;
}

}  // namespace attnviz::test
