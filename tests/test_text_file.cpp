// Bounded reads of input files: regular files only, FIFOs refused without blocking, a size cap,
// and the JSON nesting limit shared by every JSON attnviz parses.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/io/text_file.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::TempDir;

TEST_CASE("text file: a directory, a FIFO and a device are refused by name, without blocking") {
  TempDir dir;
  const std::string d = dir.path().string();
  CHECK_THROWS_WITH_AS(read_text_file(d), (d + ": is a directory, expected a file").c_str(), Error);
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(read_text_file(fifo), (fifo + ": is not a regular file").c_str(), Error);
  CHECK_THROWS_WITH_AS(read_text_file("/dev/zero"), "/dev/zero: is not a regular file", Error);
}

TEST_CASE("text file: content over the cap is an error giving the limit, at the cap it is read") {
  TempDir dir;
  std::ofstream(dir / "t.txt") << std::string(10, 'x');
  CHECK(read_regular_file((dir / "t.txt").string(), 10) == std::string(10, 'x'));
  CHECK_THROWS_WITH_AS(
      read_regular_file((dir / "t.txt").string(), 9),
      ((dir / "t.txt").string() + ": larger than the limit of 9 bytes for this input").c_str(),
      Error);
  CHECK(k_max_text_file_bytes == 256u << 20);
}

TEST_CASE("json: nesting is counted outside strings and refused past 128 levels") {
  CHECK(find_json_too_deep(std::string(128, '[') + std::string(128, ']')) == std::string::npos);
  CHECK(find_json_too_deep(std::string(129, '[')) == 128);
  CHECK(find_json_too_deep("[\"[[[[\\\"[[[[\"]", 2) == std::string::npos);  // brackets in a string
  CHECK(find_json_too_deep("{\"a\":{\"b\":[1]}}", 2) == 10);
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  CHECK_THROWS_WITH_AS(parse_json(deep, "x.json"),
                       "x.json: JSON nests deeper than 128 levels (at byte 128)", Error);
  CHECK_THROWS_WITH_AS(
      parse_json("[1e309]", "x.json"),
      doctest::Contains("x.json: not valid JSON: [json.exception.out_of_range.406]"), Error);
  CHECK(parse_json("{\"a\": [1, 2]}", "x.json")["a"][1] == 2);
}
