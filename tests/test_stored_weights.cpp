// Weights stay in the mapped file in their stored dtype: BF16 / F16 models give the maps of their
// F32 copy, layers are checked at load but converted as forward runs, and the token table converts
// rows and blocks of rows on use.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/model/token_table.hpp"
#include "check_close.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::k_torch;
using attnviz::test::llama_layout;
using attnviz::test::TempDir;

namespace {

// A tensor to write in a stored dtype: the values must be exactly representable in it.
struct StoredValues {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
  std::string dtype = "";  // its own dtype, else the file's
};

// float → bfloat16 bits, rounded to nearest even (the values here are finite).
uint16_t to_bf16(float x) {
  const auto u = std::bit_cast<uint32_t>(x);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// A bfloat16 value whose exponent F16 can hold as a normal number → its binary16 bits (exact: F16
// keeps 10 mantissa bits, bfloat16 7).
uint16_t bf16_value_to_f16(float x) {
  if (x == 0.0f) return 0;
  const auto u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (u >> 16) & 0x8000u, exp = ((u >> 23) & 0xFFu) - 127 + 15,
                 mant = (u >> 13) & 0x3FFu;
  REQUIRE(exp >= 1);
  REQUIRE(exp <= 30);
  return static_cast<uint16_t>(sign | (exp << 10) | mant);
}

// Rounds to bfloat16, flushing magnitudes below F16's normal range (2^-14) to 0, so that every
// value is exact in BF16, F16 and F32 alike.
float common_value(float x) {
  const float b = std::bit_cast<float>(static_cast<uint32_t>(to_bf16(x)) << 16);
  return std::abs(b) < 0x1p-14f ? 0.0f : b;
}

// A safetensors file of `dtype` ("F32", "F16", "BF16") written byte by byte.
void write_stored(const std::filesystem::path& path, const std::vector<StoredValues>& tensors,
                  const std::string& dtype) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& t : tensors) {
    const std::string& d = t.dtype.empty() ? dtype : t.dtype;
    const size_t begin = data.size();
    for (float x : t.values) {
      if (d == "F32") {
        data.append(reinterpret_cast<const char*>(&x), 4);
      } else {
        const uint16_t h = d == "BF16" ? to_bf16(x) : bf16_value_to_f16(x);
        data.append(reinterpret_cast<const char*>(&h), 2);
      }
    }
    header[t.name] = {{"dtype", d}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t n = text.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << text << data;
}

// A fixture's tensors with every value made common to BF16, F16 and F32.
std::vector<StoredValues> common_values(const std::string& fixture) {
  const SafetensorsFile src = SafetensorsFile::open(k_torch / fixture / "model.safetensors");
  std::vector<StoredValues> out;
  for (const TensorInfo& info : src.tensors()) {
    Tensor t = src.load(info.name);
    for (float& x : t.data) x = common_value(x);
    out.push_back({info.name, t.shape, t.data});
  }
  return out;
}

std::vector<StoredValues> llama_common_values() {
  return common_values("hf_llama");
}

// GPT-2's Conv1D weights [in, out] turned into nn.Linear's [out, in], as nanoGPT stores the same
// model.
std::vector<StoredValues> as_linear_weights(std::vector<StoredValues> tensors) {
  for (auto& t : tensors) {
    const bool conv1d = t.shape.size() == 2 && t.name.find(".h.") != std::string::npos;
    if (!conv1d) continue;
    const int64_t rows = t.shape[0], cols = t.shape[1];
    std::vector<float> transposed(t.values.size());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c)
        transposed[size_t(c * rows + r)] = t.values[size_t(r * cols + c)];
    }
    t.values = transposed;
    t.shape = {cols, rows};
  }
  return tensors;
}

// The hidden states of a GPT-2 model in `folder` on hf_gpt2's ids.
Matrix gpt2_hidden(const std::filesystem::path& folder, const ConfigOverrides& o) {
  const Model m = load_model(folder, o);
  const Sequence s = embed_ids(m, {36, 4, 13, 34, 48, 0, 21}, {"a", "b", "c", "d", "e", "f", "g"});
  return forward(m, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
}

// `attnviz run` on a model folder with hf_llama's config, saving every map and the hidden states.
SafetensorsFile run_saved(const TempDir& dir, const std::vector<StoredValues>& tensors,
                          const std::string& dtype) {
  const auto folder = dir / dtype;
  std::filesystem::create_directory(folder);
  std::filesystem::copy_file(k_torch / "hf_llama" / "config.json", folder / "config.json");
  write_stored(folder / "model.safetensors", tensors, dtype);
  const auto r =
      test::run_attnviz(fmt::format("run --model '{}' --ids tests/fixtures/torch/hf_llama/ids.txt "
                                    "--layout-file tests/fixtures/torch/llama_layout.json "
                                    "--no-heatmap --table none --save '{}'",
                                    folder.string(), (folder / "out.safetensors").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return SafetensorsFile::open(folder / "out.safetensors");
}

}  // namespace

TEST_CASE("stored weights: a BF16 and an F16 model give exactly the maps of their F32 copy") {
  TempDir dir;
  const auto tensors = llama_common_values();
  const SafetensorsFile f32 = run_saved(dir, tensors, "F32");
  for (const char* dtype : {"BF16", "F16"}) {
    CAPTURE(dtype);
    const SafetensorsFile stored = run_saved(dir, tensors, dtype);
    REQUIRE(stored.tensors().size() == f32.tensors().size());
    for (const TensorInfo& t : f32.tensors()) {
      CAPTURE(t.name);
      CHECK(stored.load(t.name).data ==
            f32.load(t.name).data);  // the same float32 weights, bit for bit
    }
  }
}

TEST_CASE(
    "stored weights: layers converted one at a time give the hidden states of layers held in "
    "memory") {
  const Model lazy = load_model(k_torch / "hf_llama", llama_layout());
  REQUIRE(lazy.weights.decoder.bind_layer);
  Model eager = lazy;
  eager.weights.decoder.bind_layer = nullptr;
  for (int l = 0; l < lazy.weights.decoder.n_layers(); ++l) {
    std::optional<LayerWeights> held;
    eager.weights.decoder.layers.push_back(lazy.weights.decoder.layer(l, held));
  }
  REQUIRE(eager.weights.decoder.n_layers() == 2);
  const Sequence s = embed_ids(lazy, {1, 5, 9, 2}, {"a", "b", "c", "d"});
  const Matrix a = forward(lazy, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
  const Matrix b = forward(eager, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
  CHECK(a == b);
}

TEST_CASE(
    "stored weights: a wrong shape or dtype in the last layer is an error at load, before anything "
    "runs") {
  TempDir dir;
  auto tensors = llama_common_values();
  std::filesystem::copy_file(k_torch / "hf_llama" / "config.json", dir / "config.json");
  const ConfigOverrides o = llama_layout();
  for (auto& t : tensors) {
    if (t.name == "model.layers.1.mlp.down_proj.weight")
      t.shape = {48, 32};  // stored [F, D], not [D, F]
  }
  write_stored(dir / "model.safetensors", tensors, "BF16");
  const std::string shape = error_of([&] { (void)load_model(dir.path(), o); });
  CHECK_MESSAGE(
      contains(
          shape,
          "tensor 'model.layers.1.mlp.down_proj.weight' has shape [48, 32], expected [32, 48]"),
      shape);

  // An integer tensor where a weight belongs cannot be converted: refused at load too.
  std::string bytes = test::slurp(k_torch / "hf_llama" / "model.safetensors");
  const std::string name = "\"model.layers.1.self_attn.q_proj.weight\":{\"dtype\":\"F32\"";
  const auto at = bytes.find(name);
  REQUIRE(at != std::string::npos);
  bytes.replace(at + name.size() - 4, 3, "I32");  // same size per element, so the file stays valid
  std::ofstream(dir / "model.safetensors", std::ios::binary | std::ios::trunc) << bytes;
  const std::string dtype = error_of([&] { (void)load_model(dir.path(), o); });
  CHECK_MESSAGE(
      contains(dtype,
               "tensor 'model.layers.1.self_attn.q_proj.weight' has dtype I32; only F32, F16, "
               "BF16 and F64 can be loaded"),
      dtype);
}

TEST_CASE(
    "stored weights: a token table's rows and its product in blocks equal a float reference") {
  // 2 blocks and 37 rows: the last block is short.
  const Eigen::Index rows = 2 * TokenTable::k_block_rows + 37, cols = 6;
  Matrix reference(rows, cols);
  std::vector<float> values;
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c) {
      const float x = common_value(std::sin(0.37f * float(r) + 1.3f * float(c)));
      reference(r, c) = x;
      values.push_back(x);
    }
  }
  Matrix hidden(3, cols);
  hidden << 1, -2, 0.5, 0, 3, 1,   //
      0.25, 0.25, -1, 2, 0, -0.5,  //
      0, 0, 0, 0, 0, 1;
  const Matrix expected = hidden * reference.transpose();
  TempDir dir;
  for (const char* dtype : {"BF16", "F16", "F32"}) {
    CAPTURE(dtype);
    write_stored(dir / "t.safetensors", {{"table", {rows, cols}, values}}, dtype);
    const auto file =
        std::make_shared<const SafetensorsFile>(SafetensorsFile::open(dir / "t.safetensors"));
    const TokenTable table(file->stored("table"), file);
    REQUIRE(table.rows() == rows);
    REQUIRE(table.cols() == cols);
    for (Eigen::Index id : {Eigen::Index(0), Eigen::Index(4095), Eigen::Index(4096), rows - 1}) {
      CHECK(table.row(id) == reference.row(id));
    }
    test::check_close(table.times_transposed(hidden), expected, 1e-5f, "hidden · tableᵀ");
    CHECK(same_values(table, TokenTable(reference)));
    Matrix changed = reference;
    changed(rows - 1, cols - 1) += 1.0f;  // in the short last block
    CHECK_FALSE(same_values(table, TokenTable(changed)));
  }
}

TEST_CASE(
    "stored weights: GPT-2's Conv1D weights read as stored give the hidden states of the same "
    "nn.Linear weights") {
  TempDir dir;
  const auto conv1d =
      common_values("hf_gpt2");  // BF16-exact values, so every dtype holds the same weights
  const auto write = [&](const std::string& name, std::vector<StoredValues> tensors,
                         const std::string& dtype) {
    std::filesystem::create_directory(dir / name);
    std::filesystem::copy_file(k_torch / "hf_gpt2" / "config.json", dir / name / "config.json");
    write_stored(dir / name / "model.safetensors", tensors, dtype);
    return dir / name;
  };
  // nanoGPT's layout reads the transposed copy as nn.Linear weights; GPT-2's own activation and
  // heads.
  TempDir linear;
  write_stored(linear / "model.safetensors", as_linear_weights(conv1d), "F32");
  ConfigOverrides nano;
  nano.layout = "nanogpt";
  nano.activation = "gelu_tanh";
  nano.n_heads = 4;
  const Matrix expected = gpt2_hidden(linear.path(), nano);
  REQUIRE(expected.rows() == 7);

  CHECK(gpt2_hidden(write("f32", conv1d, "F32"), {}) ==
        expected);  // views of the mapping, c_attn strided
  CHECK(gpt2_hidden(write("bf16", conv1d, "BF16"), {}) ==
        expected);  // converted, Conv1D kept [in, out]
  // A one-element BF16 tensor first puts every F32 tensor 2 bytes off a float's alignment: copied,
  // same values.
  auto shifted = conv1d;
  shifted.insert(shifted.begin(), StoredValues{"pad", {1}, {1.0f}, "BF16"});
  CHECK(gpt2_hidden(write("unaligned", shifted, "F32"), {}) == expected);
}
