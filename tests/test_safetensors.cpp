// Tests for the safetensors reader and writer: files hand-built byte by byte in the layout of the
// reference implementation, every malformed case rejected with its own message, and round trips.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "temp_dir.hpp"

using attnviz::test::TempDir;

namespace fs = std::filesystem;
using attnviz::SafetensorsFile;

namespace {

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return s;
}

// Raw little-endian bytes of values (the host is little-endian, as the reader requires).
template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

// The reference writer pads the header with spaces so the data starts 8-byte aligned.
std::string padded(std::string header) {
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

std::string file_bytes(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

// Opens bytes written to a temp file; expects Error whose message names the file and contains
// every needle (the distinguishing text, the tensor, expected vs actual).
void check_rejected(const std::string& bytes, const std::vector<std::string>& needles) {
  TempDir dir;
  const fs::path p = dir / "bad.safetensors";
  write_bytes(p, bytes);
  try {
    (void)SafetensorsFile::open(p);
    FAIL("malformed file was accepted");
  } catch (const attnviz::Error& e) {
    const std::string msg = e.what();
    INFO("message: ", msg);
    CHECK(e.exit_code() == attnviz::k_exit_runtime);
    CHECK(msg.find(p.string()) != std::string::npos);
    for (const auto& needle : needles) {
      INFO("needle: ", needle);
      CHECK(msg.find(needle) != std::string::npos);
    }
  }
}

// A header with one F32 tensor "w" of shape [2] whose entry fields are given verbatim.
std::string one_tensor(const std::string& entry) {
  return "{\"w\":" + entry + "}";
}

const std::string k_w_ok = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
const std::string k_two_floats = raw<float>({1.0f, 2.0f});

}  // namespace

// ---- reading valid files -----------------------------------------------------------------------

TEST_CASE("safetensors: reads the reference writer's layout with F64, F32, BF16 and F16") {
  // As safetensors.torch.save_file writes it: compact JSON, __metadata__ first, tensors in data
  // order (names chosen so sorted order is also the reference's dtype-descending order), fields
  // dtype/shape/data_offsets, header padded with spaces to a multiple of 8.
  const std::string header =
      padded(R"({"__metadata__":{"format":"pt"},)"
             R"("a_f64":{"dtype":"F64","shape":[3],"data_offsets":[0,24]},)"
             R"("b_f32":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},)"
             R"("c_bf16":{"dtype":"BF16","shape":[4],"data_offsets":[32,40]},)"
             R"("d_f16":{"dtype":"F16","shape":[2,5],"data_offsets":[40,60]}})");
  REQUIRE(header.back() == ' ');
  const std::string data = raw<double>({0.1, -2.5, 1e300}) + raw<float>({1.5f, -0.25f}) +
                           raw<uint16_t>({0x3F80, 0xC040, 0x3E20, 0x7F80}) +
                           raw<uint16_t>({0x3C00, 0xC000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00,
                                          0xFC00, 0x7E00, 0x8000});
  TempDir dir;
  write_bytes(dir / "ref.safetensors", file_bytes(header, data));
  const SafetensorsFile f = SafetensorsFile::open(dir / "ref.safetensors");
  CHECK(f.metadata() == std::map<std::string, std::string>{{"format", "pt"}});
  REQUIRE(f.tensors().size() == 4);
  CHECK(f.tensors()[3].name == "d_f16");
  CHECK(f.tensors()[3].dtype == "F16");
  CHECK(f.tensors()[3].shape == std::vector<int64_t>{2, 5});

  const auto f64 = f.load("a_f64").data;  // rounded to nearest float; 1e300 overflows to inf
  CHECK(f64 == std::vector<float>{0.1f, -2.5f, std::numeric_limits<float>::infinity()});
  CHECK(f.load("b_f32").data == std::vector<float>{1.5f, -0.25f});
  // BF16 = top 16 bits of binary32: 0x3F80 = 1, 0xC040 = -3, 0x3E20 = 0.15625, 0x7F80 = inf.
  CHECK(f.load("c_bf16").data ==
        std::vector<float>{1.0f, -3.0f, 0.15625f, std::numeric_limits<float>::infinity()});

  const attnviz::Tensor h = f.load("d_f16");
  CHECK(h.shape == std::vector<int64_t>{2, 5});
  REQUIRE(h.data.size() == 10);
  CHECK(h.data[0] == 1.0f);
  CHECK(h.data[1] == -2.0f);
  CHECK(h.data[2] == 5.9604644775390625e-08f);  // 0x0001: smallest subnormal, 2^-24
  CHECK(h.data[3] == 6.097555160522461e-05f);   // 0x03FF: largest subnormal, 1023 × 2^-24
  CHECK(h.data[4] == 6.103515625e-05f);         // 0x0400: smallest normal, 2^-14
  CHECK(h.data[5] == 65504.0f);                 // 0x7BFF: largest finite half
  CHECK(h.data[6] == std::numeric_limits<float>::infinity());
  CHECK(h.data[7] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(h.data[8]));
  CHECK(h.data[9] == 0.0f);
  CHECK(std::signbit(h.data[9]));  // 0x8000 is -0
}

TEST_CASE("safetensors: tensors listed out of offset order are accepted and sorted by offset") {
  const std::string header = padded(R"({"z":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                    R"("a":{"dtype":"F32","shape":[1,1],"data_offsets":[4,8]}})");
  TempDir dir;
  write_bytes(dir / "x.safetensors", file_bytes(header, raw<float>({7.0f, 8.0f})));
  const SafetensorsFile f = SafetensorsFile::open(dir / "x.safetensors");
  REQUIRE(f.tensors().size() == 2);
  CHECK(f.tensors()[0].name == "z");
  CHECK(f.tensors()[1].name == "a");
  CHECK(f.tensors()[1].begin == 4);
  CHECK(f.tensors()[1].end == 8);
  CHECK(f.load("a").data == std::vector<float>{8.0f});
  CHECK(f.find("a") == &f.tensors()[1]);
  CHECK(f.find("missing") == nullptr);
  CHECK(f.metadata().empty());
}

TEST_CASE("safetensors: empty header, null __metadata__ and zero-size tensors are valid") {
  TempDir dir;
  write_bytes(dir / "empty.safetensors", file_bytes("{}", ""));
  CHECK(SafetensorsFile::open(dir / "empty.safetensors").tensors().empty());

  const std::string header =
      padded(R"({"__metadata__":null,"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]}})");
  write_bytes(dir / "zero.safetensors", file_bytes(header, ""));
  const SafetensorsFile f = SafetensorsFile::open(dir / "zero.safetensors");
  CHECK(f.metadata().empty());
  const attnviz::Tensor t = f.load("e");
  CHECK(t.shape == std::vector<int64_t>{0, 3});
  CHECK(t.data.empty());
}

TEST_CASE("safetensors: load rejects a non-float dtype naming the tensor and the dtype") {
  const std::string header = padded(R"({"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})");
  TempDir dir;
  write_bytes(dir / "i.safetensors", file_bytes(header, raw<int64_t>({42})));
  const SafetensorsFile f = SafetensorsFile::open(dir / "i.safetensors");
  CHECK_THROWS_AS(f.load("ids"), attnviz::Error);
  try {
    (void)f.load("ids");
  } catch (const attnviz::Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'ids'") != std::string::npos);
    CHECK(msg.find("dtype I64") != std::string::npos);
  }
}

TEST_CASE("safetensors: load of an absent tensor names it") {
  TempDir dir;
  write_bytes(dir / "e.safetensors", file_bytes("{}", ""));
  const SafetensorsFile f = SafetensorsFile::open(dir / "e.safetensors");
  try {
    (void)f.load("nope");
    FAIL("absent tensor loaded");
  } catch (const attnviz::Error& e) {
    CHECK(std::string(e.what()).find("no tensor named 'nope'") != std::string::npos);
  }
}

TEST_CASE("safetensors: a missing file is an Error naming it") {
  TempDir dir;
  const std::string expected =
      (dir / "absent.safetensors").string() + ": cannot open: No such file or directory";
  CHECK_THROWS_WITH_AS(SafetensorsFile::open(dir / "absent.safetensors"), expected.c_str(),
                       attnviz::Error);
}

// ---- every malformed case, one test each -------------------------------------------------------

TEST_CASE("safetensors: rejects a file shorter than the 8-byte header length") {
  check_rejected(std::string("\x02\0\0\0\0", 5),
                 {"file is 5 bytes", "too short for the 8-byte header length"});
}

TEST_CASE("safetensors: rejects a header length over 100,000,000") {
  check_rejected(le64(100'000'001) + "{}",
                 {"header length 100000001 exceeds the limit of 100000000"});
}

TEST_CASE("safetensors: rejects a header length past the end of the file") {
  check_rejected(le64(64) + "{}", {"header length 64 runs past the end of the file", "> 10 bytes"});
}

TEST_CASE("safetensors: rejects a header that is not UTF-8") {
  check_rejected(file_bytes("{\"\xC3\x28\":1}", ""),
                 {"header is not valid UTF-8", "0xc3", "offset 2"});
}

TEST_CASE("safetensors: rejects a header that is not JSON") {
  check_rejected(file_bytes("{\"w\":", ""), {"header is not valid JSON"});
}

TEST_CASE("safetensors: rejects a header that is not a JSON object") {
  check_rejected(file_bytes("[1,2]   ", ""), {"header must be a JSON object, got array [1,2]"});
}

TEST_CASE("safetensors: rejects a duplicate tensor name") {
  const std::string header = R"({"w":)" + k_w_ok + R"(,"w":)" + k_w_ok + "}";
  check_rejected(file_bytes(header, k_two_floats), {"duplicate tensor name 'w'"});
}

TEST_CASE("safetensors: rejects a duplicate field inside a tensor entry") {
  const std::string entry = R"({"dtype":"F32","dtype":"F16","shape":[2],"data_offsets":[0,8]})";
  check_rejected(file_bytes(one_tensor(entry), k_two_floats),
                 {"tensor 'w' has duplicate field 'dtype'"});
}

TEST_CASE("safetensors: rejects a duplicate __metadata__ key") {
  check_rejected(file_bytes(R"({"__metadata__":{"k":"a","k":"b"}})", ""),
                 {"__metadata__ has duplicate key 'k'"});
}

TEST_CASE("safetensors: rejects a tensor entry that is not an object") {
  check_rejected(file_bytes(R"({"w":[0,8]})", ""),
                 {"tensor 'w': entry must be an object, got array"});
}

TEST_CASE("safetensors: rejects a tensor entry missing data_offsets") {
  check_rejected(file_bytes(one_tensor(R"({"dtype":"F32","shape":[2]})"), k_two_floats),
                 {"tensor 'w': missing field 'data_offsets'"});
}

TEST_CASE("safetensors: rejects a dtype that is not a string") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":4,"shape":[2],"data_offsets":[0,8]})"), k_two_floats),
      {"tensor 'w': dtype must be a string, got number 4"});
}

TEST_CASE("safetensors: rejects an unknown dtype") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F128","shape":[2],"data_offsets":[0,8]})"), k_two_floats),
      {"tensor 'w': unknown dtype 'F128'", "expected one of BOOL, U8"});
}

TEST_CASE("safetensors: rejects a shape that is not an array") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":"2","data_offsets":[0,8]})"), k_two_floats),
      {"tensor 'w': shape must be an array of non-negative integers, got string \"2\""});
}

TEST_CASE("safetensors: rejects a negative shape dimension") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})"), k_two_floats),
      {"tensor 'w': shape[0] must be a non-negative integer, got number -2"});
}

TEST_CASE("safetensors: rejects a fractional shape dimension") {
  check_rejected(file_bytes(one_tensor(R"({"dtype":"F32","shape":[1,2.5],"data_offsets":[0,8]})"),
                            k_two_floats),
                 {"tensor 'w': shape[1] must be a non-negative integer, got number 2.5"});
}

TEST_CASE("safetensors: rejects data_offsets that are not 2 integers") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4,8]})"), k_two_floats),
      {"tensor 'w': data_offsets must be an array of 2 unsigned integers, got array [0,4,8]"});
}

TEST_CASE("safetensors: rejects a negative data offset") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[-8,0]})"), k_two_floats),
      {"tensor 'w': data_offsets[0] must be an unsigned integer, got number -8"});
}

TEST_CASE("safetensors: rejects __metadata__ that is not an object") {
  check_rejected(file_bytes(R"({"__metadata__":["a"]})", ""),
                 {"__metadata__ must be an object of string values, got array"});
}

TEST_CASE("safetensors: rejects a non-string __metadata__ value") {
  check_rejected(file_bytes(R"({"__metadata__":{"step":3}})", ""),
                 {"__metadata__ entry 'step' must be a string, got number 3"});
}

TEST_CASE("safetensors: rejects a shape product that overflows 64 bits") {
  const std::string entry =
      R"({"dtype":"F32","shape":[2,18446744073709551614],"data_offsets":[0,8]})";
  check_rejected(file_bytes(one_tensor(entry), k_two_floats),
                 {"tensor 'w': shape [2, 18446744073709551614]", "overflows 64 bits"});
}

TEST_CASE("safetensors: rejects a shape product that overflows only times the dtype size") {
  // 2^62 elements fit in 64 bits; 2^62 × 4 bytes do not.
  const std::string entry = R"({"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,8]})";
  check_rejected(file_bytes(one_tensor(entry), k_two_floats),
                 {"shape [4611686018427387904] × 4 bytes (F32) overflows 64 bits"});
}

TEST_CASE("safetensors: rejects a dimension beyond int64 even when the product is 0") {
  const std::string entry =
      R"({"dtype":"F32","shape":[0,9223372036854775808],"data_offsets":[0,0]})";
  check_rejected(file_bytes(one_tensor(entry), ""),
                 {"tensor 'w': shape[1] = 9223372036854775808 does not fit in int64"});
}

TEST_CASE("safetensors: rejects a hole between tensors") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
  check_rejected(file_bytes(header, raw<float>({1, 2, 3})),
                 {"tensor 'b': data_offsets [8, 12] leave a hole",
                  "expected begin 4 (the end of tensor 'a'), got 8"});
}

TEST_CASE("safetensors: rejects a first tensor that does not start at offset 0") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), k_two_floats),
      {"tensor 'w': data_offsets [4, 8] leave a hole",
       "expected begin 0 (the start of the data buffer), got 4"});
}

TEST_CASE("safetensors: rejects overlapping tensors") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  check_rejected(file_bytes(header, k_two_floats),
                 {"tensor 'b': data_offsets [4, 8] overlap tensor 'a', which ends at 8"});
}

TEST_CASE("safetensors: rejects data_offsets whose end is before their begin") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})";
  check_rejected(file_bytes(header, raw<float>({1})),
                 {"tensor 'b': data_offsets [4, 0] end before they begin"});
}

TEST_CASE("safetensors: rejects a byte length that does not match shape × dtype size") {
  check_rejected(
      file_bytes(one_tensor(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})"), k_two_floats),
      {"tensor 'w': data_offsets [0, 8] hold 8 bytes but shape [3] of F32 needs 12 bytes"});
}

TEST_CASE("safetensors: rejects a data buffer shorter than the last offset") {
  check_rejected(file_bytes(one_tensor(k_w_ok), raw<float>({1})),
                 {"data buffer is 4 bytes but the tensors need 8", "truncated"});
}

TEST_CASE("safetensors: rejects a data buffer longer than the last offset") {
  check_rejected(file_bytes(one_tensor(k_w_ok), k_two_floats + "xyz"),
                 {"data buffer is 11 bytes but the tensors end at 8: 3 trailing bytes"});
}

TEST_CASE("safetensors: rejects a header nested 200,000 deep, in a tensor or in __metadata__") {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  check_rejected(file_bytes(padded("{\"w\":" + deep + "}"), ""),
                 {"header: JSON nests deeper than 128 levels"});
  check_rejected(file_bytes(padded("{\"__metadata__\":{\"a\":" + deep + "}}"), ""),
                 {"header: JSON nests deeper than 128 levels (at byte"});
}

TEST_CASE("safetensors: rejects a number out of double's range (1e309) as invalid JSON") {
  check_rejected(
      file_bytes(padded(one_tensor(R"({"dtype":"F32","shape":[1e309],"data_offsets":[0,8]})")),
                 k_two_floats),
      {"header is not valid JSON", "1e309"});
}

TEST_CASE("safetensors: a FIFO is refused at once, not waited on") {
  TempDir dir;
  const fs::path fifo = dir / "m.safetensors";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS((void)SafetensorsFile::open(fifo),
                       (fifo.string() + ": not a regular file").c_str(), attnviz::Error);
}

// ---- writing -----------------------------------------------------------------------------------

TEST_CASE("safetensors: writer emits the exact header, in the given order, padded with spaces") {
  const float b[] = {1.0f};
  const float a[] = {2.0f, 3.0f};
  const std::string bytes = attnviz::serialize_safetensors({{"b", {1}, b}, {"a", {2, 1}, a}}, {});
  const std::string json = R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                           R"("a":{"dtype":"F32","shape":[2,1],"data_offsets":[4,12]}})";
  const std::string header = padded(json);
  REQUIRE(header.size() % 8 == 0);
  REQUIRE(header.size() > json.size());  // this case does need padding
  CHECK(bytes == le64(header.size()) + header + raw<float>({1.0f, 2.0f, 3.0f}));
}

TEST_CASE("safetensors: writer puts non-empty __metadata__ first") {
  const float x[] = {5.0f};
  const std::string bytes =
      attnviz::serialize_safetensors({{"x", {}, x}}, {{"k", "v"}, {"a", "b"}});
  const std::string json = R"({"__metadata__":{"a":"b","k":"v"},)"
                           R"("x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})";
  CHECK(bytes == le64(padded(json).size()) + padded(json) + raw<float>({5.0f}));
}

TEST_CASE("safetensors: writer rejects duplicate tensor names") {
  const float x[] = {1.0f};
  CHECK_THROWS_WITH_AS(attnviz::serialize_safetensors({{"x", {1}, x}, {"x", {1}, x}}, {}),
                       "cannot write safetensors: duplicate tensor name 'x'", attnviz::Error);
}

TEST_CASE("safetensors: writer rejects null data") {
  CHECK_THROWS_WITH_AS(attnviz::serialize_safetensors({{"x", {2, 3}, nullptr}}, {}),
                       "cannot write safetensors: tensor 'x' [2, 3] has null data", attnviz::Error);
  // Zero elements need no data, so null is fine there (an empty vector's data() may be null).
  CHECK_NOTHROW(attnviz::serialize_safetensors({{"x", {0, 3}, nullptr}}, {}));
}

TEST_CASE("safetensors: writer rejects a negative dimension") {
  const float x[] = {1.0f};
  CHECK_THROWS_WITH_AS(attnviz::serialize_safetensors({{"x", {-1}, x}}, {}),
                       "cannot write safetensors: tensor 'x' has negative shape [-1]",
                       attnviz::Error);
}

TEST_CASE("safetensors: round trip keeps names, order, shapes, values and metadata") {
  std::vector<float> q(2 * 3);
  std::vector<float> bias = {-1.5f, 0.0f, 3.25f};
  for (size_t i = 0; i < q.size(); ++i) q[i] = 0.5f * static_cast<float>(i) - 1.0f;
  const std::vector<float> empty;
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"note", "héllo"}};
  TempDir dir;
  const fs::path p = dir / "rt.safetensors";
  attnviz::write_safetensors(p,
                             {{"layers.0.q.weight", {2, 3}, q.data()},
                              {"layers.0.bias", {3}, bias.data()},
                              {"empty", {0}, empty.data()}},
                             metadata);
  const std::string bytes = read_bytes(p);
  REQUIRE(bytes.size() > 8);
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  CHECK(header_len % 8 == 0);
  CHECK(bytes.size() == 8 + header_len + (6 + 3) * sizeof(float));

  SafetensorsFile f = SafetensorsFile::open(p);
  CHECK(f.path() == p);
  CHECK(f.metadata() == metadata);
  REQUIRE(f.tensors().size() == 3);
  CHECK(f.tensors()[0].name == "layers.0.q.weight");
  CHECK(f.tensors()[1].name == "layers.0.bias");
  CHECK(f.tensors()[2].name == "empty");
  const attnviz::Tensor t = f.load("layers.0.q.weight");
  CHECK(t.shape == std::vector<int64_t>{2, 3});
  CHECK(t.data == q);
  CHECK(f.load("layers.0.bias").data == bias);
  CHECK(f.load("empty").shape == std::vector<int64_t>{0});

  // Moving the file object keeps the mapping alive.
  SafetensorsFile moved = std::move(f);
  CHECK(moved.load("layers.0.bias").data == bias);
}

TEST_CASE(
    "safetensors: the fuzzer's 1e309 header (fuzz/corpus) is an attnviz error naming the file") {
  const std::string path =
      std::string(ATTNVIZ_SOURCE_DIR) + "/fuzz/corpus/safetensors/number-overflow-1e309";
  try {
    SafetensorsFile::open(path);
    FAIL("no error");
  } catch (const attnviz::Error& e) {
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
}
