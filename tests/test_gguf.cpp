// GGUF reader: a good file's header, metadata and tensors, and every refusal of llama.cpp's
// gguf.cpp, each on a handcrafted bad file.
#include <doctest/doctest.h>

#include <string>

#include "attnviz/io/gguf/gguf.hpp"
#include "error_of.hpp"
#include "gguf_builder.hpp"
#include "io/gguf/gguf_header.hpp"
#include "temp_dir.hpp"

using attnviz::GgufFile;
using attnviz::test::error_of;
using attnviz::test::GgufBuilder;
using attnviz::test::GgufBytes;

namespace {

constexpr int32_t k_u32 = 4, k_f32 = 6, k_bool = 7, k_string = 8, k_array = 9, k_u64 = 10;
constexpr int32_t k_type_f32 = 0, k_type_q8_0 = 8;

std::string parse_error(const std::string& bytes) {
  return error_of([&] { attnviz::detail::parse_gguf(bytes, "bad.gguf"); });
}

// One F32 tensor "w" of 2 × 3 (ne[0] = 3), values 1..6.
GgufBuilder good() {
  GgufBuilder b;
  b.kv_string("general.architecture", "llama");
  std::string data;
  for (int i = 1; i <= 6; ++i) {
    const float v = static_cast<float>(i);
    data.append(reinterpret_cast<const char*>(&v), 4);
  }
  b.tensor({"w", k_type_f32, {3, 2}, data, {}, {}});
  return b;
}

// A pair of key, array type, element type, count, then the raw rest.
std::string array_kv(const std::string& key, int32_t elem, uint64_t n, const std::string& rest) {
  GgufBytes b;
  b.str(key).put<int32_t>(k_array).put<int32_t>(elem).put<uint64_t>(n);
  return b.out + rest;
}

}  // namespace

TEST_CASE("gguf: a good file opens with its header, metadata and tensors") {
  attnviz::test::TempDir dir;
  const std::string bytes = good().build();
  std::ofstream(dir / "m.gguf", std::ios::binary) << bytes;
  const GgufFile f = GgufFile::open(dir / "m.gguf");
  CHECK(f.version() == 3);
  CHECK(f.alignment() == 32);
  CHECK(f.data_offset() % 32 == 0);
  CHECK(f.metadata().get<std::string>("general.architecture") == "llama");
  REQUIRE(f.tensors().size() == 1);
  const auto& t = f.tensors()[0];
  CHECK(t.name == "w");
  CHECK(t.dims == std::vector<int64_t>{3, 2});
  CHECK(t.row_length() == 3);
  CHECK(t.rows() == 2);
  CHECK(t.bytes == 24);
  CHECK(f.dequantize(t) == std::vector<float>{1, 2, 3, 4, 5, 6});
  std::vector<float> row(3);
  f.dequantize_rows(t, 1, 2, row.data());
  CHECK(row == std::vector<float>{4, 5, 6});
  CHECK(error_of([&] { f.dequantize_rows(t, 1, 3, row.data()); }).find("rows [1, 3)") !=
        std::string::npos);
}

TEST_CASE("gguf: version 2 reads like 3, version 1, 0, > 3 and byte-swapped are refused") {
  GgufBuilder b = good();
  b.version = 2;
  CHECK(attnviz::detail::parse_gguf(b.build(), "v2.gguf").version == 2);
  b.version = 1;
  CHECK(parse_error(b.build()).find("version 1 is no longer supported") != std::string::npos);
  b.version = 0;
  CHECK(parse_error(b.build()).find("version 0") != std::string::npos);
  b.version = 4;
  CHECK(parse_error(b.build()).find("version 4 is newer") != std::string::npos);
  b.version = 0x03000000;  // version 3 written big-endian
  CHECK(parse_error(b.build()).find("big-endian") != std::string::npos);
}

TEST_CASE("gguf: bad magic is refused, showing the bytes") {
  GgufBuilder b = good();
  b.magic = "GGML";
  CHECK(parse_error(b.build()) == "bad.gguf: not a GGUF file: magic 'GGML', expected 'GGUF'");
  b.magic = std::string("\x01GG\xff", 4);
  CHECK(parse_error(b.build()).find("magic '?GG?'") != std::string::npos);
}

TEST_CASE("gguf: counts impossible for the file size are refused before any loop") {
  GgufBuilder b = good();
  b.n_tensors = -1;
  CHECK(parse_error(b.build()).find("number of tensors is -1, expected >= 0") != std::string::npos);
  b.n_tensors = int64_t{1} << 60;
  CHECK(parse_error(b.build()).find("claims 1152921504606846976 tensors") != std::string::npos);
  b = good();
  b.n_kv = -5;
  CHECK(parse_error(b.build()).find("key/value pairs is -5") != std::string::npos);
  b.n_kv = 1000;
  CHECK(parse_error(b.build()).find("claims 1000 metadata key/value pairs") != std::string::npos);
}

TEST_CASE("gguf: empty and duplicate keys are refused") {
  GgufBuilder b = good();
  b.kv<uint32_t>("", k_u32, 1);
  CHECK(parse_error(b.build()) == "bad.gguf: key 1 is empty");
  b = good();
  b.kv_string("general.architecture", "gpt2");
  CHECK(parse_error(b.build()) == "bad.gguf: duplicate key 'general.architecture' (key 1)");
}

TEST_CASE("gguf: string and array lengths beyond the file, nested arrays, bad value types") {
  GgufBuilder b = good();
  GgufBytes s;
  s.str("k").put<int32_t>(k_string).put<uint64_t>(uint64_t{1} << 40);
  b.kvs.push_back(s.out);
  CHECK(parse_error(b.build()).find("the value of 'k' has length 1099511627776") !=
        std::string::npos);
  b = good();
  b.kvs.push_back(array_kv("a", k_u64, uint64_t{1} << 61, ""));
  CHECK(parse_error(b.build()).find("array 'a' has 2305843009213693952 elements of u64, beyond "
                                    "the end of the file") != std::string::npos);
  b = good();
  b.kvs.push_back(array_kv("s", k_string, 1000000, ""));  // 8 bytes each at least
  CHECK(parse_error(b.build()).find("array 's' has 1000000 elements of str") != std::string::npos);
  b = good();
  b.kvs.push_back(array_kv("n", k_array, 1, ""));
  CHECK(parse_error(b.build()).find("key 'n' is an array of arrays") != std::string::npos);
  b = good();
  b.kv<uint32_t>("t", 13, 0);
  CHECK(parse_error(b.build()).find("key 't' has value type 13, expected 0 to 12") !=
        std::string::npos);
  b = good();
  b.kv<uint32_t>("t", -1, 0);
  CHECK(parse_error(b.build()).find("value type -1") != std::string::npos);
}

TEST_CASE("gguf: general.alignment must be a u32 power of two, it sets the layout") {
  GgufBuilder b = good();
  b.kv<uint32_t>("general.alignment", k_u32, 64);
  b.alignment = 64;
  const auto layout = attnviz::detail::parse_gguf(b.build(), "a.gguf");
  CHECK(layout.alignment == 64);
  CHECK(layout.data_offset % 64 == 0);
  for (const uint32_t bad : {0u, 3u, 48u}) {
    b = good();
    b.kv<uint32_t>("general.alignment", k_u32, bad);
    CHECK(parse_error(b.build()) ==
          "bad.gguf: general.alignment is " + std::to_string(bad) + ", expected a power of two");
  }
  b = good();
  b.kv<uint64_t>("general.alignment", k_u64, 32);
  CHECK(parse_error(b.build()) ==
        "bad.gguf: key 'general.alignment' must be of type u32, but is u64");
  b = good();
  GgufBytes v;
  v.put<uint32_t>(32);
  b.kvs.push_back(array_kv("general.alignment", k_u32, 1, v.out));
  CHECK(parse_error(b.build()).find("but is an array of u32") != std::string::npos);
}

TEST_CASE("gguf: tensor names: at most 63 bytes, no duplicates") {
  GgufBuilder b = good();
  b.tensors[0].name = std::string(63, 'n');
  CHECK(attnviz::detail::parse_gguf(b.build(), "ok.gguf").tensors[0].name.size() == 63);
  b.tensors[0].name = std::string(64, 'n');
  CHECK(parse_error(b.build()).find("tensor 0's name is 64 bytes long, expected at most 63") !=
        std::string::npos);
  b = good();
  b.tensor(b.tensors[0]);
  CHECK(parse_error(b.build()) == "bad.gguf: duplicate tensor name 'w' (tensor 1)");
}

TEST_CASE("gguf: dims: at most 4, none negative, no int64 overflow of the element count") {
  GgufBuilder b = good();
  b.tensors[0].dims = {3, 2, 1, 1, 1};
  CHECK(parse_error(b.build()).find("tensor 'w' has 5 dimensions, expected at most 4") !=
        std::string::npos);
  b.tensors[0].dims = {3, -2};
  CHECK(parse_error(b.build()).find("tensor 'w' dimension 1 is -2, expected >= 0") !=
        std::string::npos);
  b.tensors[0].dims = {int64_t{1} << 32, int64_t{1} << 31};
  CHECK(parse_error(b.build()).find("overflows int64") != std::string::npos);
  // A zero dimension does not hide an overflow of the others.
  b.tensors[0].dims = {0, int64_t{1} << 32, int64_t{1} << 32};
  CHECK(parse_error(b.build()).find("overflows int64") != std::string::npos);
  // F64 of 2^61 elements: the byte count would reach 2^64.
  b.tensors[0].dims = {int64_t{1} << 61};
  b.tensors[0].type = 28;
  CHECK(parse_error(b.build()).find("size in bytes beyond 2^64") != std::string::npos);
}

TEST_CASE("gguf: types out of range, removed, or with rows not whole blocks are refused") {
  GgufBuilder b = good();
  b.tensors[0].type = 40;
  CHECK(parse_error(b.build()).find("ggml type 40, expected 0 to 39") != std::string::npos);
  b.tensors[0].type = -1;
  CHECK(parse_error(b.build()).find("ggml type -1") != std::string::npos);
  b.tensors[0].type = 4;
  CHECK(parse_error(b.build()).find("a type removed from GGUF") != std::string::npos);
  b.tensors[0].type = k_type_q8_0;  // rows of 3 elements, blocks of 32
  CHECK(parse_error(b.build()) ==
        "bad.gguf: tensor 'w' of type Q8_0 has rows of 3 elements, not "
        "a multiple of its block size 32");
}

TEST_CASE("gguf: offsets must be the running padded total, data must end inside the file") {
  GgufBuilder b = good();
  b.tensor({"v", k_type_f32, {2}, std::string(8, '\0'), {}, {}});
  CHECK(attnviz::detail::parse_gguf(b.build(), "ok.gguf").tensors[1].offset == 32);
  b.tensors[1].offset = 24;  // right after w's 24 bytes, but not padded to 32
  CHECK(parse_error(b.build()).find("tensor 'v' has offset 24, expected 32") != std::string::npos);
  b.tensors[1].offset = 64;
  CHECK(parse_error(b.build()).find("tensor 'v' has offset 64, expected 32") != std::string::npos);
  b = good();
  b.pad_last = false;
  b.tensors[0].data.resize(20);  // 24 bytes needed
  CHECK(parse_error(b.build()).find("tensor 'w' (24 bytes at data offset 0) ends past the end") !=
        std::string::npos);
  // The last tensor's padding may be absent (llama.cpp's loader checks the unpadded end).
  b = good();
  b.pad_last = false;
  CHECK(attnviz::detail::parse_gguf(b.build(), "ok.gguf").tensors.size() == 1);
}

TEST_CASE("gguf: a header truncated at any byte is refused, never read past") {
  GgufBuilder b = good();
  b.kv<float>("f", k_f32, 1.5f).kv<bool>("b", k_bool, true);
  const std::string whole = b.build();
  const auto layout = attnviz::detail::parse_gguf(whole, "whole.gguf");
  for (size_t n = 0; n < layout.data_offset + 24; ++n) {
    CAPTURE(n);
    const std::string message = parse_error(whole.substr(0, n));
    CHECK(message.rfind("bad.gguf: ", 0) == 0);
  }
}

TEST_CASE("gguf: metadata getters name the key, the expected and the actual type") {
  GgufBuilder b = good();
  b.kv<uint32_t>("n", k_u32, 7).kv<bool>("flag", k_bool, true);
  GgufBytes v;
  v.str("a").str("bc");
  b.kvs.push_back(array_kv("tokens", k_string, 2, v.out));
  const auto layout = attnviz::detail::parse_gguf(b.build(), "m.gguf");
  const attnviz::GgufMetadata md("m.gguf", layout.metadata);
  CHECK(md.get<uint32_t>("n") == 7);
  CHECK(md.get<bool>("flag"));
  CHECK(md.get_array<std::string>("tokens") == std::vector<std::string>{"a", "bc"});
  CHECK(error_of([&] { md.get<int32_t>("n"); }) == "m.gguf: metadata key 'n' is u32, expected i32");
  CHECK(error_of([&] { md.get<std::string>("tokens"); }) ==
        "m.gguf: metadata key 'tokens' is an array of str, expected str");
  CHECK(error_of([&] { md.get<float>("nope"); }) ==
        "m.gguf: no metadata key 'nope' (expected f32)");
  CHECK(md.find("nope") == nullptr);
}

TEST_CASE("gguf: get_count takes a count stored as any integer type, never a negative one") {
  GgufBuilder b = good();
  b.kv<uint32_t>("llama.block_count", k_u32, 16).kv<uint64_t>("llama.context_length", k_u64, 8192);
  b.kv<int32_t>("i", 5, 3).kv<int32_t>("neg", 5, -1).kv<float>("f", k_f32, 2.0f);
  const auto layout = attnviz::detail::parse_gguf(b.build(), "m.gguf");
  const attnviz::GgufMetadata md("m.gguf", layout.metadata);
  CHECK(md.get_count("llama.block_count") == 16);
  CHECK(md.get_count("llama.context_length") == 8192);
  CHECK(md.get_count("i") == 3);
  CHECK(error_of([&] { md.get_count("neg"); }) ==
        "m.gguf: metadata key 'neg' is i32 -1, expected a non-negative integer");
  CHECK(error_of([&] { md.get_count("f"); }) ==
        "m.gguf: metadata key 'f' is f32, expected a non-negative integer");
}
