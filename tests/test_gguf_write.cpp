// The GGUF writer: files read back by attnviz's reader (every value type, arrays, alignment,
// tensors of each writable type), a committed file read by an independent parser
// (@huggingface/gguf, tests/fixtures/gguf_quant/check_written.mjs), and each refusal.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/gguf/gguf_quantize.hpp"
#include "attnviz/io/gguf/gguf_write.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using attnviz::GgmlType;
using attnviz::GgufWriter;
using attnviz::test::error_of;

namespace {

const fs::path k_dir = fs::path(ATTNVIZ_SOURCE_DIR) / "tests" / "fixtures" / "gguf_quant";

uint32_t type_of(GgmlType t) {
  return static_cast<uint32_t>(t);
}

// Deterministic values: a sine pattern with a growing amplitude, no two rows alike.
std::vector<float> pattern(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] =
        scale * std::sin(0.37f * static_cast<float>(i) + 0.1f) * (1.0f + static_cast<float>(i % 7));
  return v;
}

// The file check_written.mjs reads: every metadata value type and one tensor per writable type.
GgufWriter sample_writer() {
  using namespace attnviz;
  GgufWriter w;
  w.set("general.architecture", gguf_string("llama"));
  w.set("general.alignment", gguf_scalar<uint32_t>(64));
  w.set("t.u8", gguf_scalar<uint8_t>(200));
  w.set("t.i8", gguf_scalar<int8_t>(-100));
  w.set("t.u16", gguf_scalar<uint16_t>(60000));
  w.set("t.i16", gguf_scalar<int16_t>(-30000));
  w.set("t.u32", gguf_scalar<uint32_t>(4000000000u));
  w.set("t.i32", gguf_scalar<int32_t>(-2000000000));
  w.set("t.u64", gguf_scalar<uint64_t>(18000000000000000000ull));
  w.set("t.i64", gguf_scalar<int64_t>(-9000000000000000000ll));
  w.set("t.f32", gguf_scalar<float>(0.15625f));
  w.set("t.f64", gguf_scalar<double>(-2.5e300));
  w.set("t.bool", gguf_scalar<bool>(true));
  w.set("t.str", gguf_string("caf\xc3\xa9\n\x1b[31m"));
  w.set("t.arr_i32", gguf_array<int32_t>({1, -2, 3}));
  w.set("t.arr_f32", gguf_array<float>({0.5f, -1.25f}));
  w.set("t.arr_bool", gguf_array<bool>({true, false, true}));
  w.set("t.arr_str", gguf_strings({"a", "", "\xe2\x96\x81the"}));
  w.set("t.arr_empty", gguf_array<uint8_t>({}));
  const GgmlType types[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0,
                            GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q8_0,
                            GgmlType::Q2_K, GgmlType::Q3_K, GgmlType::Q4_K, GgmlType::Q5_K,
                            GgmlType::Q6_K};
  for (const GgmlType t : types) {
    w.add_tensor("w." + ggml_type_name(type_of(t)), {256, 2}, type_of(t), pattern(512, 0.01f));
  }
  w.add_tensor("norm", {7}, type_of(GgmlType::F32), pattern(7, 1.0f));  // a size not of 64
  return w;
}

}  // namespace

TEST_CASE("gguf write: a written file reads back with every value, type and offset") {
  attnviz::test::TempDir dir;
  const GgufWriter w = sample_writer();
  w.write(dir / "m.gguf");
  const attnviz::GgufFile f = attnviz::GgufFile::open(dir / "m.gguf");
  CHECK(f.version() == 3);
  CHECK(f.alignment() == 64);
  CHECK(f.data_offset() % 64 == 0);
  CHECK(fs::file_size(dir / "m.gguf") % 64 == 0);
  const attnviz::GgufMetadata& md = f.metadata();
  CHECK(md.entries().size() == 19);
  CHECK(md.entries()[0].first == "general.architecture");  // file order is the order set
  CHECK(md.get<uint8_t>("t.u8") == 200);
  CHECK(md.get<int8_t>("t.i8") == -100);
  CHECK(md.get<uint16_t>("t.u16") == 60000);
  CHECK(md.get<int16_t>("t.i16") == -30000);
  CHECK(md.get<uint32_t>("t.u32") == 4000000000u);
  CHECK(md.get<int32_t>("t.i32") == -2000000000);
  CHECK(md.get<uint64_t>("t.u64") == 18000000000000000000ull);
  CHECK(md.get<int64_t>("t.i64") == -9000000000000000000ll);
  CHECK(md.get<float>("t.f32") == 0.15625f);
  CHECK(md.get<double>("t.f64") == -2.5e300);
  CHECK(md.get<bool>("t.bool"));
  CHECK(md.get<std::string>("t.str") == "caf\xc3\xa9\n\x1b[31m");
  CHECK(md.get_array<int32_t>("t.arr_i32") == std::vector<int32_t>{1, -2, 3});
  CHECK(md.get_array<float>("t.arr_f32") == std::vector<float>{0.5f, -1.25f});
  CHECK(md.get_array<bool>("t.arr_bool") == std::vector<bool>{true, false, true});
  CHECK(md.get_array<std::string>("t.arr_str") ==
        std::vector<std::string>{"a", "", "\xe2\x96\x81the"});
  CHECK(md.get_array<uint8_t>("t.arr_empty").empty());
  REQUIRE(f.tensors().size() == 14);
  uint64_t expected_offset = 0;
  for (const attnviz::GgufTensorInfo& t : f.tensors()) {
    CAPTURE(t.name);
    CHECK(t.offset == expected_offset);  // each tensor starts where the padded previous one ends
    expected_offset += (t.bytes + 63) / 64 * 64;
    if (t.name == "norm") continue;
    CHECK(t.name == "w." + attnviz::ggml_type_name(t.type));
    CHECK(t.dims == std::vector<int64_t>{256, 2});
    // What the reader dequantises is what the quantiser made of the values.
    const std::vector<float> x = pattern(512, 0.01f);
    const std::vector<unsigned char> q = attnviz::quantize_rows(t.type, x, 256);
    CHECK(t.bytes == q.size());
    const std::vector<float> back = f.dequantize(t);
    if (t.type == type_of(GgmlType::F32)) CHECK(back == x);
    // Quantisation keeps values within one level step of the whole range (0.14 over 2^bits - 1
    // levels), a loose bound: each block's own range is smaller.
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(back[i] - x[i]));
    const std::string name = attnviz::ggml_type_name(t.type);
    const int bits = name == "F32" ? 24 : name == "F16" ? 11 : name == "BF16" ? 8 : name[1] - '0';
    CHECK(worst <= 0.14f / static_cast<float>((1 << bits) - 1));
  }
  CHECK(f.dequantize(*f.find("norm")) == pattern(7, 1.0f));
}

TEST_CASE("gguf write: @huggingface/gguf reads the committed file as attnviz wrote it") {
  // tests/fixtures/gguf_quant/written.gguf is sample_writer()'s output; check_written.mjs read it
  // with @huggingface/gguf into written.json. The writer must still write exactly those bytes.
  if (std::getenv("ATTNVIZ_WRITE_GGUF_FIXTURE")) sample_writer().write(k_dir / "written.gguf");
  const std::string committed = attnviz::test::slurp(k_dir / "written.gguf");
  CHECK(sample_writer().bytes() == committed);
  const nlohmann::json ref = nlohmann::json::parse(attnviz::test::slurp(k_dir / "written.json"));
  CHECK(ref["version"] == 3);
  CHECK(ref["metadata"]["t.str"] == "caf\xc3\xa9\n\x1b[31m");
  CHECK(ref["metadata"]["t.u64"] == "18000000000000000000");
  CHECK(ref["metadata"]["t.arr_str"] == nlohmann::json::array({"a", "", "\xe2\x96\x81the"}));
  CHECK(ref["metadata"]["general.alignment"] == 64);
  CHECK(ref["metadata"].size() == 19);
  REQUIRE(ref["tensors"].size() == 14);
  const attnviz::GgufFile f = attnviz::GgufFile::open(k_dir / "written.gguf");
  CHECK(ref["tensor_data_offset"] == f.data_offset());
  for (size_t i = 0; i < 14; ++i) {
    const attnviz::GgufTensorInfo& t = f.tensors()[i];
    CAPTURE(t.name);
    CHECK(ref["tensors"][i]["name"] == t.name);
    CHECK(ref["tensors"][i]["dtype"] == t.type);
    CHECK(ref["tensors"][i]["offset"] == t.offset);
    CHECK(ref["tensors"][i]["shape"] == t.dims);
  }
}

TEST_CASE("gguf write: refusals name the tensor or key") {
  GgufWriter w;
  const std::vector<float> x(64, 1.0f);
  w.add_tensor("a", {64}, type_of(GgmlType::F32), x);
  CHECK(error_of([&] { w.add_tensor("a", {64}, type_of(GgmlType::F32), x); }) ==
        "GGUF writer: tensor 'a' is added twice");
  CHECK(error_of([&] {
          w.add_tensor("b", {32, 3}, type_of(GgmlType::F32), x);
        }) == "GGUF writer: tensor 'b' has dims [32, 3] (96 values) but 64 values were given");
  CHECK(error_of([&] {
          w.add_tensor(std::string(64, 'n'), {64}, type_of(GgmlType::F32), x);
        }).find("must have 1 to 63 bytes") != std::string::npos);
  CHECK(error_of([&] {
          w.add_tensor("g", {-64, -1}, type_of(GgmlType::F32), x);
        }) == "GGUF writer: tensor 'g' has dims [-64, -1]: negative or too large");
  CHECK(error_of([&] {
          w.add_tensor("h", {1ll << 62, 1ll << 62, 4}, type_of(GgmlType::F32), x);
        }).find("negative or too large") != std::string::npos);  // 2^126 elements: no wrap to 64
  CHECK(error_of([&] {
          w.add_tensor("c", {64}, type_of(GgmlType::Q4_K), x);
        }).find("not a whole number of Q4_K blocks") != std::string::npos);
  CHECK(error_of([&] { w.set("general.alignment", attnviz::gguf_scalar<uint32_t>(48)); }) ==
        "GGUF writer: general.alignment must be a u32 power of two");
  CHECK(error_of([&] { w.set("general.alignment", attnviz::gguf_scalar<uint64_t>(64)); }) ==
        "GGUF writer: general.alignment must be a u32 power of two");
  CHECK(error_of([&] { w.set("", attnviz::gguf_scalar<uint8_t>(1)); }) ==
        "GGUF writer: an empty metadata key");
  std::vector<float> big(64, 1.0f);
  big[5] = 1e6f;  // beyond F16's 65504
  CHECK(error_of([&] { w.add_tensor("d", {64}, type_of(GgmlType::F16), big); }) ==
        "GGUF writer: tensor 'd' element 5 (1000000) becomes inf in F16: the values are beyond "
        "what the type holds (F16 scales reach 65504)");
  // Q4_0's scale is max / -8 = -125000, beyond F16: ggml would write inf scales.
  CHECK(error_of([&] {
          w.add_tensor("e", {64}, type_of(GgmlType::Q4_0), big);
        }).find("tensor 'e' element") != std::string::npos);
  CHECK(error_of([&] { w.add_tensor("f", {64}, type_of(GgmlType::Q8_0), big); }) == "(no error)");
}

TEST_CASE("gguf write: a failed write leaves nothing behind") {
  attnviz::test::TempDir dir;
  const GgufWriter w = sample_writer();
  CHECK(error_of([&] { w.write(dir / "missing" / "m.gguf"); }).find("missing") !=
        std::string::npos);
  CHECK(fs::is_empty(dir.path()));
}
