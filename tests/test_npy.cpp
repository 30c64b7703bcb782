// Tests for the .npy reader and writer: numpy-written fixtures (fixtures/make_npy_fixtures.py;
// values hard-coded from its np.arange inputs) and hand-built malformed files, one case each.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/npy.hpp"
#include "temp_dir.hpp"

using attnviz::test::TempDir;

namespace fs = std::filesystem;
using attnviz::Matrix;

namespace {

const fs::path k_fixtures = fs::path(ATTNVIZ_SOURCE_DIR) / "tests" / "fixtures" / "npy";

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Matrix make(int rows, int cols, std::initializer_list<float> row_major) {
  REQUIRE(row_major.size() == static_cast<size_t>(rows * cols));
  Matrix m(rows, cols);
  auto it = row_major.begin();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = *it++;
  return m;
}

// Equal shapes and values (Eigen's == asserts on a shape mismatch instead of returning false).
bool same(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

// A version 1.0 file: magic, version, u16 header length, the dict text ending in '\n', data.
std::string npy_v1(const std::string& dict, const std::string& data) {
  const std::string header = dict + "\n";
  std::string s = "\x93NUMPY\x01";
  s.push_back('\0');
  s.push_back(static_cast<char>(header.size() & 0xFF));
  s.push_back(static_cast<char>(header.size() >> 8));
  return s + header + data;
}

std::string f4_bytes(std::initializer_list<float> values) {
  std::string s;
  for (float v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

std::string dict(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

const std::string k_ok_dict = dict("'<f4'", "False", "(1, 2)");
const std::string k_ok_data = f4_bytes({1.0f, 2.0f});

// Reads bytes from a temp file; expects Error whose message names the file and contains `needle`.
void check_rejected(const std::string& bytes, const std::string& needle) {
  TempDir dir;
  const fs::path p = dir / "bad.npy";
  write_bytes(p, bytes);
  try {
    (void)attnviz::read_npy(p);
    FAIL("malformed file was accepted");
  } catch (const attnviz::Error& e) {
    const std::string msg = e.what();
    INFO("message: ", msg);
    INFO("needle: ", needle);
    CHECK(e.exit_code() == attnviz::k_exit_runtime);
    CHECK(msg.find(p.string()) != std::string::npos);
    CHECK(msg.find(needle) != std::string::npos);
  }
}

}  // namespace

// ---- numpy-written fixtures --------------------------------------------------------------------

TEST_CASE("npy: reads C-order float32 written by numpy") {
  // np.arange(6, dtype='<f4').reshape(2, 3)
  CHECK(same(attnviz::read_npy(k_fixtures / "c_f4.npy"), make(2, 3, {0, 1, 2, 3, 4, 5})));
}

TEST_CASE("npy: reads Fortran-order float64 into the right places") {
  // np.asfortranarray(np.arange(12).reshape(3, 4) * 0.5 - 1)
  CHECK(same(attnviz::read_npy(k_fixtures / "fortran_f8.npy"),
             make(3, 4, {-1, -0.5f, 0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f})));
}

TEST_CASE("npy: reads big-endian float32") {
  // (np.arange(6).reshape(3, 2) - 2.5).astype('>f4')
  CHECK(same(attnviz::read_npy(k_fixtures / "big_f4.npy"),
             make(3, 2, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f})));
}

TEST_CASE("npy: reads big-endian Fortran-order float64") {
  // np.asfortranarray((np.arange(1, 7) * 0.25).reshape(2, 3).astype('>f8'))
  CHECK(same(attnviz::read_npy(k_fixtures / "big_fortran_f8.npy"),
             make(2, 3, {0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f})));
}

TEST_CASE("npy: float64 rounds to the nearest float32 and overflows to inf") {
  // np.array([[0.1, -1e300]], dtype='<f8')
  const Matrix m = attnviz::read_npy(k_fixtures / "c_f8.npy");
  REQUIRE(m.rows() == 1);
  REQUIRE(m.cols() == 2);
  CHECK(m(0, 0) == 0.1f);
  CHECK(m(0, 1) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("npy: reads header versions 2.0 and 3.0") {
  const Matrix expected = make(2, 3, {0, 1, 2, 3, 4, 5});
  CHECK(same(attnviz::read_npy(k_fixtures / "v2_f4.npy"), expected));
  CHECK(same(attnviz::read_npy(k_fixtures / "v3_f4.npy"), expected));
}

TEST_CASE("npy: write_npy output is byte-identical to numpy's np.save") {
  TempDir dir;
  attnviz::write_npy(dir / "out.npy", make(2, 3, {0, 1, 2, 3, 4, 5}));
  CHECK(read_bytes(dir / "out.npy") == read_bytes(k_fixtures / "c_f4.npy"));
}

TEST_CASE("npy: write then read round trip, version 1.0, data 64-byte aligned") {
  Matrix m(3, 5);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) m(i, j) = static_cast<float>(i * 10 + j) / 7.0f - 1.0f;
  TempDir dir;
  attnviz::write_npy(dir / "m.npy", m);
  const std::string bytes = read_bytes(dir / "m.npy");
  REQUIRE(bytes.size() > 10);
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  CHECK((10 + header_len) % 64 == 0);
  CHECK(bytes[10 + header_len - 1] == '\n');
  const std::string dict_start = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }";
  CHECK(bytes.substr(10, dict_start.size()) == dict_start);
  CHECK(bytes.size() == 10 + header_len + 15 * sizeof(float));
  CHECK(same(attnviz::read_npy(dir / "m.npy"), m));
}

TEST_CASE("npy: writes and reads an array with zero rows") {
  TempDir dir;
  attnviz::write_npy(dir / "z.npy", Matrix(0, 4));
  const Matrix z = attnviz::read_npy(dir / "z.npy");
  CHECK(z.rows() == 0);
  CHECK(z.cols() == 4);
}

// ---- hand-built files that are valid -----------------------------------------------------------

TEST_CASE("npy: '=f4' (native order) reads as little-endian") {
  TempDir dir;
  write_bytes(dir / "n.npy", npy_v1(dict("'=f4'", "False", "(1, 2)"), k_ok_data));
  CHECK(same(attnviz::read_npy(dir / "n.npy"), make(1, 2, {1, 2})));
}

TEST_CASE("npy: double quotes, Python 2 long ints and no trailing comma are accepted") {
  TempDir dir;
  write_bytes(
      dir / "p.npy",
      npy_v1("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2L, 1L)}", k_ok_data));
  CHECK(same(attnviz::read_npy(dir / "p.npy"), make(2, 1, {1, 2})));
}

// ---- malformed files, one case each ------------------------------------------------------------

TEST_CASE("npy: rejects a missing file") {
  TempDir dir;
  CHECK_THROWS_AS(attnviz::read_npy(dir / "absent.npy"), attnviz::Error);
}

TEST_CASE("npy: rejects a bad magic") {
  check_rejected("PK\x03\x04 not numpy at all", "not a .npy file");
}

TEST_CASE("npy: rejects a file that ends inside the version") {
  check_rejected("\x93NUMPY\x01", "file ends before the npy version bytes");
}

TEST_CASE("npy: rejects an unsupported version") {
  std::string bytes = npy_v1(k_ok_dict, k_ok_data);
  bytes[6] = '\x04';
  check_rejected(bytes, "unsupported npy version 4.0");
}

TEST_CASE("npy: rejects a file that ends inside the header length") {
  check_rejected(std::string("\x93NUMPY\x02\x00\x10\x00", 10),
                 "file ends inside the npy header length field");
}

TEST_CASE("npy: rejects a header length past the end of the file") {
  check_rejected(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12),
                 "npy header length 255 runs past the end of the file: 10 + 255 > 12 bytes");
}

TEST_CASE("npy: rejects a header that is not a dict") {
  check_rejected(npy_v1("['descr', '<f4']", ""), "npy header: expected '{' at header offset 0");
}

TEST_CASE("npy: rejects text after the header dict") {
  check_rejected(npy_v1(k_ok_dict + " x", k_ok_data), "unexpected text after the dict");
}

TEST_CASE("npy: rejects a missing key") {
  check_rejected(npy_v1("{'descr': '<f4', 'fortran_order': False, }", k_ok_data),
                 "npy header has no 'shape' key");
}

TEST_CASE("npy: rejects an unexpected key") {
  check_rejected(
      npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), 'x': True}", k_ok_data),
      "npy header has unexpected key 'x'");
}

TEST_CASE("npy: rejects a duplicate key") {
  check_rejected(npy_v1("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}",
                        k_ok_data),
                 "npy header: duplicate key 'descr'");
}

TEST_CASE("npy: rejects a descr that is not a string") {
  check_rejected(npy_v1(dict("True", "False", "(1, 2)"), k_ok_data),
                 "npy header 'descr' must be a string");
}

TEST_CASE("npy: rejects a structured descr") {
  check_rejected(npy_v1(dict("[('a', '<f4')]", "False", "(1, 2)"), k_ok_data),
                 "value of 'descr' is not a string, True, False or a tuple of ints");
}

TEST_CASE("npy: rejects an unsupported descr") {
  check_rejected(npy_v1(dict("'<i8'", "False", "(1, 1)"), std::string(8, '\0')),
                 "unsupported npy descr '<i8' (expected '<f4', '>f4', '<f8' or '>f8')");
}

TEST_CASE("npy: rejects a fortran_order that is not a bool") {
  check_rejected(npy_v1(dict("'<f4'", "'no'", "(1, 2)"), k_ok_data),
                 "npy header 'fortran_order' must be True or False");
}

TEST_CASE("npy: rejects a shape that is not a tuple") {
  check_rejected(npy_v1(dict("'<f4'", "False", "'1, 2'"), k_ok_data),
                 "npy header 'shape' must be a tuple of ints");
}

TEST_CASE("npy: rejects a parenthesised int as shape") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(2)"), k_ok_data),
                 "a parenthesised int is not a tuple");
}

TEST_CASE("npy: rejects a 1-D shape") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(2,)"), k_ok_data),
                 "npy shape (2,) is 1-D; attnviz reads 2-D arrays only");
}

TEST_CASE("npy: rejects a 3-D shape") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(1, 2, 1)"), k_ok_data),
                 "npy shape (1, 2, 1) is 3-D; attnviz reads 2-D arrays only");
}

TEST_CASE("npy: rejects a negative dimension") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(-1, 2)"), k_ok_data),
                 "npy shape (-1, 2) has a negative dimension");
}

TEST_CASE("npy: rejects a dimension too large for int64") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(1, 9223372036854775808)"), k_ok_data),
                 "npy header: int too large");
}

TEST_CASE("npy: rejects a shape whose byte size overflows 64 bits") {
  check_rejected(npy_v1(dict("'<f4'", "False", "(4294967296, 1073741824)"), k_ok_data),
                 "npy shape (4294967296, 1073741824) of '<f4' overflows 64 bits");
}

TEST_CASE("npy: rejects data shorter than the shape needs") {
  check_rejected(npy_v1(k_ok_dict, f4_bytes({1.0f})),
                 "data is 4 bytes but shape (1, 2) of '<f4' needs 8 (file truncated?)");
}

TEST_CASE("npy: rejects data longer than the shape needs") {
  check_rejected(npy_v1(k_ok_dict, k_ok_data + "xy"),
                 "data is 10 bytes but shape (1, 2) of '<f4' needs 8: 2 trailing bytes");
}
