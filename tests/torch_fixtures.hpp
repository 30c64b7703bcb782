// Where make_fixtures.py's PyTorch fixtures are, and the layout file that runs their Llama-shaped
// ones.
#pragma once

#include <filesystem>

#include "attnviz/model/config.hpp"

namespace attnviz::test {

inline const std::filesystem::path k_torch =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/torch";

inline ConfigOverrides llama_layout() {
  ConfigOverrides o;
  o.layout_file = (k_torch / "llama_layout.json").string();
  return o;
}

}  // namespace attnviz::test
