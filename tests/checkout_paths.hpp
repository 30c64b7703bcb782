// Where the tests find the source tree and the attnviz binary. Every test file gets this header
// first (CMake's -include), so ATTNVIZ_SOURCE_DIR and ATTNVIZ_BINARY are calls, not string
// literals: the tests' object files do not depend on the checkout's path, and ccache shares them
// between clones.
#pragma once

namespace attnviz::test {
const char* source_dir();   // the checkout's root
const char* binary_path();  // the attnviz executable built beside the tests
}  // namespace attnviz::test

#define ATTNVIZ_SOURCE_DIR (::attnviz::test::source_dir())
#define ATTNVIZ_BINARY (::attnviz::test::binary_path())
