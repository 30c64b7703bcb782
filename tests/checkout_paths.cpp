// The two paths of checkout_paths.hpp, the only test file compiled with the checkout's own paths.
#include "checkout_paths.hpp"

namespace attnviz::test {
const char* source_dir() {
  return ATTNVIZ_TEST_SOURCE_DIR;
}
const char* binary_path() {
  return ATTNVIZ_TEST_BINARY;
}
}  // namespace attnviz::test
