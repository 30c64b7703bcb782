// The fuzz targets' scratch folder (fuzz/fuzz_input.hpp) is removed when the process exits
// normally, as libFuzzer's -max_total_time ends it; it once outlived every such run in /dev/shm.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "../fuzz/fuzz_input.hpp"
#include "temp_dir.hpp"

TEST_CASE(
    "fuzz scratch: the folder of a target that exits normally is gone, under ATTNVIZ_FUZZ_DIR") {
  attnviz::test::TempDir base;
  std::cout.flush();
  std::fflush(nullptr);  // the child's exit must not print the parent's buffers again
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("ATTNVIZ_FUZZ_DIR", base.path().c_str(), 1);
    const uint8_t byte = 7;
    const auto input = attnviz::fuzz::write_input("input", &byte, 1);
    std::exit(
        std::filesystem::exists(input) && input.parent_path().parent_path() == base.path() ? 0 : 3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(!std::filesystem::exists(base / ("attnviz-fuzz-" + std::to_string(child))));
  CHECK(std::filesystem::is_empty(base.path()));
}
