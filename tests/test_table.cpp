// Tests of score/weight tables: byte-exact text, CSV (RFC 4180 quoting) and JSON for a 2x2 map,
// and CJK labels whose columns still line up by display width.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/table.hpp"

using namespace attnviz;

namespace {

Matrix causal_2x2() {
  Matrix values(2, 2);
  values << 1.0f, 0.0f, 0.1f, 0.9f;
  return values;
}

Mask causal_mask() {
  Mask mask;
  mask.causal = true;
  return mask;
}

TableStyle style_of(TableFormat format, int precision = 3) {
  TableStyle style;
  style.format = format;
  style.precision = precision;
  return style;
}

// Display column at which each space-separated field of a line ends.
std::vector<int> field_ends(const std::string& line) {
  std::vector<int> ends;
  int column = 0;
  bool in_field = false;
  for (size_t pos = 0; pos < line.size();) {
    size_t len = 1;  // one whole UTF-8 sequence
    while (pos + len < line.size() &&
           (static_cast<unsigned char>(line[pos + len]) & 0xC0) == 0x80) {
      ++len;
    }
    const bool space = line[pos] == ' ';
    if (in_field && space) ends.push_back(column);
    in_field = !space;
    column += display_width(line.substr(pos, len));
    pos += len;
  }
  if (in_field) ends.push_back(column);
  return ends;
}

}  // namespace

TEST_CASE("table: text 2x2 byte for byte, masked cells as -") {
  const std::string expected =
      "layer 0 head 0\n"
      "       The    cat\n"
      "The  1.000      -\n"
      "cat  0.100  0.900\n";
  CHECK(render_table("layer 0 head 0", causal_2x2(), causal_mask(), {"The", "cat"}, {"The", "cat"},
                     style_of(TableFormat::text)) == expected);
}

TEST_CASE("table: text precision and index labels") {
  // Columns are as wide as their widest entry: "1.0" (3) beats the header "0" (1).
  const std::string expected =
      "t\n"
      "     0    1\n"
      "0  1.0    -\n"
      "1  0.1  0.9\n";
  CHECK(render_table("t", causal_2x2(), causal_mask(), {}, {}, style_of(TableFormat::text, 1)) ==
        expected);
}

TEST_CASE("table: text wider than the width is split into blocks of keys, labels repeated") {
  Matrix values(2, 4);
  values << 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f;
  TableStyle style = style_of(TableFormat::text);
  style.width = 20;  // label 1 + 2 keys × (2 + 5) = 15 fits; a third key would make 22
  const std::string expected =
      "t\n"
      "keys 0\u20131 of 4\n"
      "      k0     k1\n"
      "a  0.100  0.200\n"
      "b  0.500  0.600\n"
      "\n"
      "keys 2\u20133 of 4\n"
      "      k2     k3\n"
      "a  0.300  0.400\n"
      "b  0.700  0.800\n";
  std::string note;
  CHECK(render_table("t", values, Mask{}, {"a", "b"}, {"k0", "k1", "k2", "k3"}, style, nullptr,
                     &note) == expected);
  CHECK(note.empty());
  style.width = 22;  // now all four keys fit: 1 + 4 × 7 = 29 > 22, but three do (22)
  CHECK(render_table("t", values, Mask{}, {"a", "b"}, {"k0", "k1", "k2", "k3"}, style)
            .rfind("t\nkeys 0\u20132 of 4\n", 0) == 0);
}

TEST_CASE("table: labels are cut for one key column, a column that cannot fit is reported") {
  Matrix values(2, 2);
  values << 0.1f, 0.9f, 0.5f, 0.5f;
  TableStyle style = style_of(TableFormat::text);
  style.width = 10;  // "because" (7) + 2 + 5 = 14: labels cut to 10 - 2 - 5 = 3 columns
  const std::string expected =
      "t\n"
      "key 0 of 2\n"
      "         x\n"
      "be\u2026  0.100\n"
      "it   0.500\n"
      "\n"
      "key 1 of 2\n"
      "         y\n"
      "be\u2026  0.900\n"
      "it   0.500\n";
  std::string note;
  CHECK(render_table("t", values, Mask{}, {"because", "it"}, {"x", "y"}, style, nullptr, &note) ==
        expected);
  CHECK(note.empty());
  style.width = 12;  // "abcdefghij" is cut to the 12 - 1 - 2 = 9 columns left beside "b"/"i"
  CHECK(render_table("t", values, Mask{}, {"b", "i"}, {"abcdefghij", "y"}, style, nullptr, &note) ==
        "t\n"
        "key 0 of 2\n"
        "   abcdefgh\u2026\n"
        "b      0.100\n"
        "i      0.500\n"
        "\n"
        "key 1 of 2\n"
        "       y\n"
        "b  0.900\n"
        "i  0.500\n");
  CHECK(note.empty());
  style.width = 6;  // 1 + 2 + 5 = 8 columns at the least
  render_table("t", values, Mask{}, {"because", "it"}, {"x", "y"}, style, nullptr, &note);
  CHECK(note ==
        "a column of 't' needs 8 columns, more than --width 6: lines are wider than the "
        "terminal");
}

TEST_CASE("table: csv 2x2 with RFC 4180 quoting and empty masked cells") {
  const std::string expected =
      "query,\"a,b\",\"say \"\"hi\"\"\"\n"
      "x,1.000,\n"
      "\"line\nbreak\",0.100,0.900\n";
  CHECK(render_table("ignored", causal_2x2(), causal_mask(), {"x", "line\nbreak"},
                     {"a,b", "say \"hi\""}, style_of(TableFormat::csv)) == expected);
  CHECK(render_table("t", causal_2x2(), Mask{}, {"The", "cat"}, {"The", "cat"},
                     style_of(TableFormat::csv, 2)) ==
        "query,The,cat\nThe,1.00,0.00\ncat,0.10,0.90\n");
}

TEST_CASE("table: json 2x2 with null for masked cells and shortest float digits") {
  const std::string expected =
      "{\"title\":\"layer 0\",\"queries\":[\"The\",\"cat\"],\"keys\":[\"The\",\"cat\"],"
      "\"values\":[[1.0,null],[0.1,0.9]]}\n";
  CHECK(render_table("layer 0", causal_2x2(), causal_mask(), {"The", "cat"}, {"The", "cat"},
                     style_of(TableFormat::json)) == expected);
}

TEST_CASE("table: json keeps full float precision and survives invalid UTF-8 labels") {
  Matrix values(1, 1);
  values << 1.0f / 3.0f;
  const std::string out =
      render_table("t", values, Mask{}, {"\xFF"}, {"k"}, style_of(TableFormat::json));
  CHECK(out.find("[[0.33333334]]") != std::string::npos);  // float32 1/3, round-trips exactly
  CHECK(out.find("\"queries\":[\"\xEF\xBF\xBD\"]") != std::string::npos);
}

TEST_CASE("table: CJK labels keep columns aligned by display width") {
  Matrix values(3, 3);
  values << 1.0f, 0.0f, 0.0f, 0.25f, 0.75f, 0.0f, 0.125f, 0.125f, 0.75f;
  const std::vector<std::string> queries = {"\xE4\xBD\xA0\xE5\xA5\xBD", "a",
                                            "he\xCC\x81llo"};  // 你好, a, héllo (combining)
  const std::vector<std::string> keys = {"\xE7\x8C\xAB", "\xE7\x8A\xAC\xE7\x8A\xAC\xE7\x8A\xAC",
                                         "x"};  // 猫, 犬犬犬 (6 columns), x
  const std::string out =
      render_table("t", values, causal_mask(), queries, keys, style_of(TableFormat::text));
  const std::string expected =
      "t\n"
      "          \xE7\x8C\xAB  \xE7\x8A\xAC\xE7\x8A\xAC\xE7\x8A\xAC      x\n"
      "\xE4\xBD\xA0\xE5\xA5\xBD   1.000       -      -\n"
      "a      0.250   0.750      -\n"
      "he\xCC\x81llo  0.125   0.125  0.750\n";
  CHECK(out == expected);
  std::istringstream in(out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 5);
  const auto header_ends = field_ends(lines[1]);
  REQUIRE(header_ends.size() == 3);
  for (size_t r = 2; r < lines.size(); ++r) {
    CAPTURE(lines[r]);
    auto ends = field_ends(lines[r]);
    REQUIRE(ends.size() == 4);
    ends.erase(ends.begin());  // the query label
    CHECK(ends == header_ends);
  }
}

TEST_CASE("table: formats parse and bad input is rejected") {
  CHECK(parse_table_format("text") == TableFormat::text);
  CHECK(parse_table_format("csv") == TableFormat::csv);
  CHECK(parse_table_format("json") == TableFormat::json);
  CHECK_THROWS_AS(parse_table_format("xml"), Error);
  CHECK_THROWS_AS(render_table("t", causal_2x2(), Mask{}, {"a"}, {}, TableStyle{}), Error);
  CHECK_THROWS_AS(render_table("t", causal_2x2(), Mask{}, {}, {"a", "b", "c"}, TableStyle{}),
                  Error);
  CHECK_THROWS_AS(render_table("t", causal_2x2(), Mask{}, {}, {}, style_of(TableFormat::text, -1)),
                  Error);
}
