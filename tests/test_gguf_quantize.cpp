// attnviz's quantisers against ggml's own bytes: rows (hard cases and seeded random ones) quantised
// by ggml_quantize_chunk without imatrix and dequantised by ggml's to_float, recorded by
// tests/fixtures/gguf_quant/make_quant_fixtures.py. Bytes must be equal, and attnviz's dequantiser
// must give ggml's floats bit for bit (SHA-256 of the float32s).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../src/io/gguf/gguf_dequant.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "attnviz/io/half_float.hpp"
#include "sha256.hpp"

namespace fs = std::filesystem;
using attnviz::GgmlType;

namespace {

const fs::path k_dir = fs::path(ATTNVIZ_SOURCE_DIR) / "tests" / "fixtures" / "gguf_quant";

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing fixture " << path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<float> read_floats(const fs::path& path) {
  const std::string bytes = read_bytes(path);
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

nlohmann::json manifest() {
  return nlohmann::json::parse(read_bytes(k_dir / "manifest.json"));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first differing block, named by row, for a readable failure.
std::string first_difference(const std::string& ours, const std::string& ggml, uint64_t row_bytes,
                             const nlohmann::json& names) {
  for (size_t i = 0; i < std::min(ours.size(), ggml.size()); ++i) {
    if (ours[i] != ggml[i]) {
      const size_t row = i / row_bytes;
      const std::string name = row < names.size() ? names[row].get<std::string>() : "f16_edges";
      return "row " + std::to_string(row) + " (" + name + "), byte " +
             std::to_string(i % row_bytes);
    }
  }
  return ours.size() == ggml.size() ? "none" : "sizes differ";
}

// make_quant_fixtures.py's bulk_rows: splitmix64 values in [-1, 1) times 2^(row % 31 - 20), every
// third row cubed, every fifth shifted by 0.75 · its scale; every step exact in float32, so Python
// and C++ make the same floats.
std::vector<float> bulk_rows(int64_t rows, int64_t n) {
  std::vector<float> x(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    const float scale = std::ldexp(1.0f, static_cast<int>(r % 31) - 20);
    for (int64_t j = 0; j < n; ++j) {
      uint64_t z = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(r * n + j + 1);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      const float u = static_cast<float>(z >> 40) * 0x1p-23f - 1.0f;
      float v = u * scale;
      if (r % 3 == 0) v = v * u * u;
      if (r % 5 == 0) v = v + 0.75f * scale;
      x[static_cast<size_t>(r * n + j)] = v;
    }
  }
  return x;
}

}  // namespace

TEST_CASE("gguf quantize: 2,048 more rows give ggml's bytes (SHA-256 of each type's output)") {
  const nlohmann::json m = manifest();
  const int64_t n = m["row_length"].get<int64_t>();
  const std::vector<float> x = bulk_rows(m["bulk_rows"].get<int64_t>(), n);
  for (const auto& [name, info] : m["types"].items()) {
    CAPTURE(name);
    const std::vector<unsigned char> q = attnviz::quantize_rows(info["type"].get<uint32_t>(), x, n);
    CHECK(attnviz::test::sha256_hex(std::string(q.begin(), q.end())) ==
          info["bulk_sha256"].get<std::string>());
  }
}

TEST_CASE("gguf quantize: every type equals ggml's reference quantiser byte for byte") {
  const nlohmann::json m = manifest();
  const int64_t n = m["row_length"].get<int64_t>();
  const std::vector<float> inputs = read_floats(k_dir / "inputs.f32");
  const std::vector<float> edges = read_floats(k_dir / "edges.f32");
  REQUIRE(inputs.size() == m["rows"].size() * static_cast<size_t>(n));
  REQUIRE(m["types"].size() == 12);
  for (const auto& [name, info] : m["types"].items()) {
    CAPTURE(name);
    const auto type = info["type"].get<uint32_t>();
    std::vector<float> x = inputs;
    if (name == "F16" || name == "BF16") x.insert(x.end(), edges.begin(), edges.end());
    const std::vector<unsigned char> q = attnviz::quantize_rows(type, x, n);
    const std::string ours(q.begin(), q.end());
    const std::string ggml = read_bytes(k_dir / (lower(name) + ".q"));
    REQUIRE(attnviz::ggml_row_bytes(type, n) == info["row_bytes"].get<uint64_t>());
    CHECK_MESSAGE(ours == ggml, "first difference: " << first_difference(
                                    ours, ggml, info["row_bytes"], m["rows"]));
  }
}

TEST_CASE("gguf quantize: attnviz's dequantiser gives ggml's to_float floats bit for bit") {
  const nlohmann::json m = manifest();
  const int64_t n = m["row_length"].get<int64_t>();
  for (const auto& [name, info] : m["types"].items()) {
    CAPTURE(name);
    const std::string ggml = read_bytes(k_dir / (lower(name) + ".q"));
    const int64_t elements = info["rows"].get<int64_t>() * n;
    std::vector<float> out(static_cast<size_t>(elements));
    attnviz::detail::dequantize_blocks(info["type"].get<uint32_t>(),
                                       reinterpret_cast<const unsigned char*>(ggml.data()),
                                       elements, out.data());
    const std::string floats(reinterpret_cast<const char*>(out.data()), out.size() * 4);
    CHECK(attnviz::test::sha256_hex(floats) == info["dequantized_sha256"].get<std::string>());
  }
}

// Hand-checked values: the F16 and BF16 roundings at their boundaries.
TEST_CASE("gguf quantize: F16 and BF16 round to nearest even, overflow to inf, keep NaN quiet") {
  CHECK(attnviz::f32_to_f16(1.0f) == 0x3C00);
  CHECK(attnviz::f32_to_f16(65504.0f) == 0x7BFF);
  CHECK(attnviz::f32_to_f16(65519.0f) == 0x7BFF);
  CHECK(attnviz::f32_to_f16(65520.0f) == 0x7C00);  // the tie rounds to even: inf
  CHECK(attnviz::f32_to_f16(-1e9f) == 0xFC00);
  CHECK(attnviz::f32_to_f16(1.0f + 0x1p-11f) == 0x3C00);  // tie, 0x3C00 is even
  CHECK(attnviz::f32_to_f16(1.0f + 0x3p-11f) == 0x3C02);  // tie, up to even
  CHECK(attnviz::f32_to_f16(0x1p-24f) == 0x0001);         // the smallest subnormal
  CHECK(attnviz::f32_to_f16(0x1p-25f) == 0x0000);         // half of it: tie to even (0)
  CHECK(attnviz::f32_to_f16(0x1.8p-24f) == 0x0002);       // 1.5 · 2^-24: tie to even (2)
  CHECK(attnviz::f32_to_f16(std::nanf("")) == 0x7E00);
  CHECK(attnviz::f32_to_bf16(1.0f + 0x1p-8f) == 0x3F80);  // tie to even
  CHECK(attnviz::f32_to_bf16(1.0f + 0x3p-8f) == 0x3F82);
  CHECK(attnviz::f32_to_bf16(-std::numeric_limits<float>::infinity()) == 0xFF80);
  CHECK((attnviz::f32_to_bf16(std::nanf("")) & 0x7FC0) == 0x7FC0);
}

TEST_CASE("gguf quantize: f32_to_f16_n equals f32_to_f16 bit for bit, on every class of float") {
  // About a million bit patterns spread over every exponent (normals, subnormals, values that
  // become half subnormals, overflow, ±inf, NaNs with payloads), both signs, with lengths that
  // leave a tail after the 8-wide vector loop.
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4093)
    x.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (uint32_t bits : {0x7F800001u, 0xFFC00001u, 0x7FFFFFFFu, 0x477FF000u, 0x477FEFFFu,
                        0x33000000u, 0x33000001u}) {
    x.push_back(std::bit_cast<float>(bits));
  }
  for (size_t n : {x.size(), size_t{7}, size_t{13}}) {
    std::vector<uint16_t> fast(n);
    attnviz::f32_to_f16_n(x.data(), fast.data(), n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += fast[i] != attnviz::f32_to_f16(x[i]);
    CHECK_MESSAGE(wrong == 0, n << " values");
  }
}

TEST_CASE("gguf quantize: rows that are not whole blocks and unwritable types are refused") {
  const std::vector<float> x(100, 1.0f);
  const auto message = [&](uint32_t type, int64_t row) {
    try {
      attnviz::quantize_rows(type, x, row);
    } catch (const attnviz::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(
      message(static_cast<uint32_t>(GgmlType::Q8_0), 50) ==
      "GGUF writer: a row of 50 elements is not a whole number of Q8_0 blocks (32 elements each)");
  CHECK(message(static_cast<uint32_t>(GgmlType::Q4_K), 100).find("256 elements each") !=
        std::string::npos);
  CHECK(message(static_cast<uint32_t>(GgmlType::F16), 30) ==
        "GGUF writer: 100 values are not whole rows of 30");
  CHECK(message(static_cast<uint32_t>(GgmlType::Q8_K), 100).find("Q8_K cannot be written") !=
        std::string::npos);
}
