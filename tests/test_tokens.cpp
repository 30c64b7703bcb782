// Token files and id lists: splitting, UTF-8 validation, empty input.
#include <doctest/doctest.h>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokens.hpp"

using namespace attnviz;

TEST_CASE("tokens: whitespace-separated and one-per-line files give the same tokens") {
  CHECK(split_tokens("the cat\tsat\n", "x") == std::vector<std::string>{"the", "cat", "sat"});
  CHECK(split_tokens("the\r\ncat\r\nsat", "x") == std::vector<std::string>{"the", "cat", "sat"});
  CHECK(split_tokens("我 爱 你", "x") == std::vector<std::string>{"我", "爱", "你"});
}

TEST_CASE("tokens: empty input and invalid UTF-8 are errors naming the source") {
  CHECK_THROWS_WITH_AS(split_tokens(" \n\t", "t.txt"), "t.txt: no tokens (the input is empty)",
                       Error);
  CHECK_THROWS_WITH_AS(split_tokens("ok \xff bad", "t.txt"), "t.txt: invalid UTF-8 at byte 3",
                       Error);
  CHECK_THROWS_WITH_AS(read_tokens("/nonexistent/t.txt"),
                       "/nonexistent/t.txt: cannot open file: No such file or directory", Error);
}

TEST_CASE("tokens: ids parse from spaces, commas and newlines, junk is rejected") {
  CHECK(parse_ids("5 17,3\n0", "ids") == std::vector<int64_t>{5, 17, 3, 0});
  CHECK_THROWS_WITH_AS(parse_ids("5 x 3", "ids"),
                       "ids: 'x' is not a token id (a non-negative integer)", Error);
  CHECK_THROWS_WITH_AS(parse_ids("-1", "ids"),
                       "ids: '-1' is not a token id (a non-negative integer)", Error);
  CHECK_THROWS_WITH_AS(parse_ids(" ", "ids"), "ids: no token ids", Error);
}

TEST_CASE("tokens: a UTF-8 byte order mark is dropped, not glued to the first token") {
  CHECK(split_tokens("\xEF\xBB\xBF[CLS] the", "x") == std::vector<std::string>{"[CLS]", "the"});
  CHECK(parse_ids("\xEF\xBB\xBF"
                  "5 3",
                  "ids") == std::vector<int64_t>{5, 3});
  // Only a leading mark: inside the text U+FEFF is a character like any other.
  CHECK(split_tokens("a \xEF\xBB\xBF"
                     "b",
                     "x") == std::vector<std::string>{"a",
                                                      "\xEF\xBB\xBF"
                                                      "b"});
}
