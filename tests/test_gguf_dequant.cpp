// GGUF dequantisation: one handcrafted block per type, its values computed by hand from the
// format's definition (ggml-common.h's block layout), and rows [r0, r1) equal to the slice of the
// whole tensor for every type.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "attnviz/io/gguf/gguf.hpp"
#include "error_of.hpp"
#include "gguf_builder.hpp"
#include "temp_dir.hpp"

namespace {

// F16 bit patterns.
constexpr uint16_t k_half_0_5 = 0x3800, k_half_1 = 0x3C00, k_half_2 = 0x4000,
                   k_half_minus_1 = 0xBC00;

struct Block {
  std::string bytes;
  Block& half(uint16_t h) { return put(h); }
  template <typename T>
  Block& put(T v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
    return *this;
  }
  Block& raw(const std::vector<uint8_t>& b) {
    bytes.append(b.begin(), b.end());
    return *this;
  }
};

// The tensor of `type` with dims and data, written to a file, opened and dequantised whole.
std::vector<float> dequantize(uint32_t type, std::vector<int64_t> dims, const std::string& data) {
  attnviz::test::TempDir dir;
  attnviz::test::GgufBuilder b;
  b.tensor({"t", static_cast<int32_t>(type), std::move(dims), data, {}, {}});
  std::ofstream(dir / "t.gguf", std::ios::binary) << b.build();
  const auto f = attnviz::GgufFile::open(dir / "t.gguf");
  return f.dequantize(f.tensors().at(0));
}

// Byte j holds low nibble j % 16 and high nibble 15 - j % 16.
std::vector<uint8_t> nibbles(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t j = 0; j < n; ++j) out[j] = static_cast<uint8_t>((j % 16) | ((15 - j % 16) << 4));
  return out;
}

}  // namespace

TEST_CASE("gguf dequant: F32, F16 and BF16 are exact") {
  CHECK(dequantize(0, {2}, Block().put(1.5f).put(-2.0f).bytes) == std::vector<float>{1.5f, -2.0f});
  // F16 0x3C00 = 1, 0xC000 = -2, 0x0001 = 2^-24 (the smallest subnormal).
  CHECK(dequantize(1, {3}, Block().half(0x3C00).half(0xC000).half(0x0001).bytes) ==
        std::vector<float>{1.0f, -2.0f, 0x1p-24f});
  // BF16 0x3FC0 = the top half of 1.5f (0x3FC00000).
  CHECK(dequantize(30, {1}, Block().half(0x3FC0).bytes) == std::vector<float>{1.5f});
}

TEST_CASE("gguf dequant: Q8_0 is d × q") {
  // d = 0.5; q = -128, -1, 0, 1, 127, then 5 .. 31 → -64, -0.5, 0, 0.5, 63.5, 2.5 .. 15.5.
  std::vector<uint8_t> qs = {0x80, 0xFF, 0, 1, 127};
  for (int j = 5; j < 32; ++j) qs.push_back(static_cast<uint8_t>(j));
  const auto y = dequantize(8, {32}, Block().half(k_half_0_5).raw(qs).bytes);
  CHECK(std::vector<float>(y.begin(), y.begin() + 5) ==
        std::vector<float>{-64, -0.5f, 0, 0.5f, 63.5f});
  for (int j = 5; j < 32; ++j) CHECK(y[j] == 0.5f * j);
}

TEST_CASE("gguf dequant: Q4_0 and Q4_1: low nibbles are elements 0-15, high nibbles 16-31") {
  // Q4_0, d = 2: element j = (j - 8) × 2, element j + 16 = (15 - j - 8) × 2.
  auto y = dequantize(2, {32}, Block().half(k_half_2).raw(nibbles(16)).bytes);
  CHECK(y[0] == -16);
  CHECK(y[8] == 0);
  CHECK(y[15] == 14);
  CHECK(y[16] == 14);
  CHECK(y[31] == -16);
  // Q4_1, d = 0.5, m = -1: element j = j × 0.5 - 1, element j + 16 = (15 - j) × 0.5 - 1.
  y = dequantize(3, {32}, Block().half(k_half_0_5).half(k_half_minus_1).raw(nibbles(16)).bytes);
  CHECK(y[0] == -1);
  CHECK(y[15] == 6.5f);
  CHECK(y[16] == 6.5f);
  CHECK(y[31] == -1);
}

TEST_CASE("gguf dequant: Q5_0 and Q5_1 take element j's fifth bit from bit j of qh") {
  // Q5_0, d = 1, qh bits 0 and 16: element 0 = (0 | 16) - 16 = 0, element 16 = (15 | 16) - 16 =
  // 15; element 1 = 1 - 16 = -15, element 17 = 14 - 16 = -2.
  auto y =
      dequantize(6, {32}, Block().half(k_half_1).put<uint32_t>(0x00010001u).raw(nibbles(16)).bytes);
  CHECK(y[0] == 0);
  CHECK(y[16] == 15);
  CHECK(y[1] == -15);
  CHECK(y[17] == -2);
  // Q5_1, d = 0.5, m = -1, qh bit 31: element 31 = (0 | 16) × 0.5 - 1 = 7; element 15 = 15 × 0.5
  // - 1 = 6.5; element 0 = -1.
  y = dequantize(7, {32},
                 Block()
                     .half(k_half_0_5)
                     .half(k_half_minus_1)
                     .put<uint32_t>(0x80000000u)
                     .raw(nibbles(16))
                     .bytes);
  CHECK(y[31] == 7);
  CHECK(y[15] == 6.5f);
  CHECK(y[0] == -1);
}

namespace {

// Q4_K / Q5_K's 12 scale bytes for scales [1, 2, 3, 4, 17, 2, 3, 4] and mins [2, 0, 0, 0, 3, 0,
// 0, 1]: byte 0 = 1 | 1 << 6 (scale 0 = 1, top bits of scale 4), byte 4 = 2 (min 0), byte 8 =
// 0x31 (scale 4 = 1 | 1 << 4 = 17, min 4 = 3), byte 11 = 0x14 (scale 7 = 4, min 7 = 1).
std::vector<uint8_t> k4_scales() {
  return {0x41, 2, 3, 4, 2, 0, 0, 0, 0x31, 0x02, 0x03, 0x14};
}

}  // namespace

TEST_CASE("gguf dequant: Q4_K is d·scale·q - dmin·min per 32-element sub-block") {
  // d = 1, dmin = 0.5; qs byte i = (i % 16) | (15 - i % 16) << 4; sub-block pair p reads qs[32p ..
  // 32p + 32), low nibbles for elements 64p .. 64p+31, high for 64p+32 .. 64p+63.
  const auto y = dequantize(
      12, {256}, Block().half(k_half_1).half(k_half_0_5).raw(k4_scales()).raw(nibbles(128)).bytes);
  CHECK(y[0] == -1);       // sub 0: 1 × 0 - 0.5 × 2
  CHECK(y[5] == 4);        // sub 0: 1 × 5 - 1
  CHECK(y[32] == 30);      // sub 1 (scale 2, min 0): high nibble of qs[0] = 15 → 2 × 15
  CHECK(y[129] == 15.5f);  // sub 4 (scale 17, min 3): qs[65] low = 1 → 17 - 1.5
  CHECK(y[255] == -0.5f);  // sub 7 (scale 4, min 1): qs[127] high = 0 → 0 - 0.5
}

TEST_CASE("gguf dequant: Q5_K adds 16 where qh's bit 2p (low) or 2p + 1 (high nibble) is set") {
  // As Q4_K, with qh[1] = 0x04: bit 2 is pair 1's low nibbles, so element 64 + 1 gets + 16.
  std::vector<uint8_t> qh(32, 0);
  qh[1] = 0x04;
  const auto y = dequantize(
      13, {256},
      Block().half(k_half_1).half(k_half_0_5).raw(k4_scales()).raw(qh).raw(nibbles(128)).bytes);
  CHECK(y[65] == 51);  // sub 2 (scale 3, min 0): (qs[33] low = 1) + 16 = 17 → 3 × 17
  CHECK(y[97] == 56);  // sub 3 (scale 4, min 0): qs[33] high = 14, no fifth bit → 4 × 14
  CHECK(y[0] == -1);   // as Q4_K
}

TEST_CASE("gguf dequant: Q6_K is d·scale·(q - 32), q = 4 bits of ql and 2 of qh") {
  // d = 0.5, scales[i] = i - 8; ql[0] = 0x5A, qh[0] = 0xE4 (bit pairs 0, 1, 2, 3), the rest 0.
  std::vector<uint8_t> ql(128, 0), qh(64, 0);
  ql[0] = 0x5A;
  qh[0] = 0xE4;
  std::vector<uint8_t> scales;
  for (int i = 0; i < 16; ++i) scales.push_back(static_cast<uint8_t>(i - 8));
  const auto y = dequantize(14, {256}, Block().raw(ql).raw(qh).raw(scales).half(k_half_0_5).bytes);
  CHECK(y[0] == 88);  // ql low 10 | qh bits 0-1 (0) → 10 - 32 = -22; scale -8 → 0.5 × -8 × -22
  CHECK(y[32] == 48);    // ql[32] low 0 | bits 2-3 (1) << 4 → 16 - 32; scale[2] = -6
  CHECK(y[64] == -10);   // ql[0] high 5 | bits 4-5 (2) << 4 = 37 → 5; scale[4] = -4
  CHECK(y[96] == -16);   // ql[32] high 0 | bits 6-7 (3) << 4 = 48 → 16; scale[6] = -2
  CHECK(y[1] == 128);    // q = -32, scale -8
  CHECK(y[128] == 0);    // second half: scale[8] = 0
  CHECK(y[144] == -16);  // second half, l = 16: scale[9] = 1 → 0.5 × 1 × -32
}

TEST_CASE("gguf dequant: Q2_K is d·(scale & 15)·q - dmin·(scale >> 4), q 2 bits") {
  // scales[i] = (i + 1) | (i % 3) << 4; qs[0] = 0xE4 (2-bit fields 0, 1, 2, 3), the rest 0;
  // d = 1, dmin = 0.5. Element 32k (k < 4) reads field k of qs[0] with scale 2k.
  std::vector<uint8_t> scales, qs(64, 0);
  for (int i = 0; i < 16; ++i) scales.push_back(static_cast<uint8_t>((i + 1) | (i % 3) << 4));
  qs[0] = 0xE4;
  const auto y =
      dequantize(10, {256}, Block().raw(scales).raw(qs).half(k_half_1).half(k_half_0_5).bytes);
  CHECK(y[0] == 0);       // q 0, scale 1, min 0
  CHECK(y[32] == 2);      // q 1, scale[2] = 3 | 2 << 4 → 3 - 1
  CHECK(y[64] == 9.5f);   // q 2, scale[4] = 5 | 1 << 4 → 10 - 0.5
  CHECK(y[96] == 21);     // q 3, scale[6] = 7 | 0 → 21
  CHECK(y[16] == -0.5f);  // qs[16] = 0, scale[1] = 2 | 1 << 4 → -0.5
}

TEST_CASE("gguf dequant: Q3_K is d·(scale - 32)·(q - 4 where hmask's bit is clear)") {
  // Scale i: low 4 bits from byte i (i < 8) or byte i - 8's high nibble, top 2 bits from byte
  // 8 + i % 4 at bit 2·(i / 4). Bytes: [0] = 0x21, [8] = 0x02 → scale 0 = 1 | 2 << 4 = 33 (→ 1),
  // scale 8 = 2 (→ -30), all others 0 (→ -32). hmask[0] = 1, qs[0] = 0xE7, d = 1.
  std::vector<uint8_t> hmask(32, 0), qs(64, 0), scales(12, 0);
  hmask[0] = 0x01;
  qs[0] = 0xE7;
  scales[0] = 0x21;
  scales[8] = 0x02;
  const auto y = dequantize(11, {256}, Block().raw(hmask).raw(qs).raw(scales).half(k_half_1).bytes);
  CHECK(y[0] == 3);      // q 3, hmask bit 0 set → 3; scale 1
  CHECK(y[1] == -4);     // q 0, hmask clear → -4; scale 1
  CHECK(y[32] == 96);    // field 1 of qs[0] = 1, hmask bit 1 clear → -3; scale[2] = -32
  CHECK(y[128] == 120);  // second half: qs[32] = 0, hmask bit 4 clear → -4; scale[8] = -30
}

TEST_CASE("gguf dequant: rows r0 to r1 equal the slice of the whole, for every type") {
  std::mt19937 rng(12);
  // type, block elements, block bytes
  const std::vector<std::array<int, 3>> types = {
      {0, 1, 4},      {1, 1, 2},      {30, 1, 2},    {2, 32, 18},   {3, 32, 20},
      {6, 32, 22},    {7, 32, 24},    {8, 32, 34},   {10, 256, 84}, {11, 256, 110},
      {12, 256, 144}, {13, 256, 176}, {14, 256, 210}};
  for (const auto& [type, block, bytes] : types) {
    CAPTURE(type);
    const int64_t row = 2 * block, rows = 5;
    std::string data(static_cast<size_t>(rows * 2 * bytes), '\0');
    for (char& c : data) c = static_cast<char>(rng());
    attnviz::test::TempDir dir;
    attnviz::test::GgufBuilder b;
    b.tensor({"t", type, {row, rows}, data, {}, {}});
    std::ofstream(dir / "t.gguf", std::ios::binary) << b.build();
    const auto f = attnviz::GgufFile::open(dir / "t.gguf");
    const auto whole = f.dequantize(f.tensors().at(0));
    REQUIRE(whole.size() == static_cast<size_t>(row * rows));
    std::vector<float> part(static_cast<size_t>(3 * row));
    f.dequantize_rows(f.tensors().at(0), 1, 4, part.data());
    // Bitwise: random scales make NaN and inf, which == would not match.
    CHECK(std::memcmp(part.data(), whole.data() + row, part.size() * 4) == 0);
  }
}

TEST_CASE("gguf dequant: a type attnviz cannot convert is refused by name") {
  attnviz::test::TempDir dir;
  attnviz::test::GgufBuilder b;
  b.tensor({"iq", 23, {256}, std::string(136, '\0'), {}, {}});  // IQ4_XS
  std::ofstream(dir / "t.gguf", std::ios::binary) << b.build();
  const auto f = attnviz::GgufFile::open(dir / "t.gguf");
  const std::string message = attnviz::test::error_of([&] { f.dequantize(f.tensors().at(0)); });
  CHECK(message.find("tensor 'iq' has type IQ4_XS, which attnviz cannot convert") !=
        std::string::npos);
}
