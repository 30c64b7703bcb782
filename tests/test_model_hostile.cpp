// Hostile checkpoints: shapes, widths, hyperparameters and shard indexes that must be clear errors
// (naming the file, the field, the expected range and the value), never a crash or a wrong map.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"  // contains
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// Tensors of the given shapes (all elements 0.5) in dir/file.
void write_tensors(const std::filesystem::path& file, const Shapes& shapes) {
  std::vector<std::vector<float>> data;
  std::vector<TensorView> views;
  for (const auto& [name, shape] : shapes) {
    int64_t n = 1;
    for (int64_t d : shape) n = d == 0 ? 0 : n * d;
    data.emplace_back(static_cast<size_t>(n) + 1, 0.5f);  // +1: never a null pointer
    views.push_back({name, shape, data.back().data()});
  }
  write_safetensors(file, views, {});
}

// A lone attention module in the "mha" layout's names: q/k/v/out weights, 4 wide unless given.
Shapes mha_shapes(std::vector<int64_t> q = {4, 4}, std::vector<int64_t> k = {4, 4}) {
  return {{"q.weight", q}, {"k.weight", k}, {"v.weight", {4, 4}}, {"out.weight", {4, 4}}};
}

// A layout file mapping encoder self-attention (and optionally more roles) to plain names.
std::string layout_json(const std::string& arch, const std::string& extra_roles = "") {
  return R"({"arch": ")" + arch +
         R"(", "roles": {"encoder.self.q.weight": "q.weight", )"
         R"("encoder.self.k.weight": "k.weight", "encoder.self.v.weight": "v.weight")" +
         extra_roles + "}}";
}

ConfigOverrides with_layout_file(const std::filesystem::path& file, int heads = 1) {
  ConfigOverrides o;
  o.layout_file = file.string();
  o.n_heads = heads;
  return o;
}

}  // namespace

TEST_CASE("model hostile: a scalar [] where a row count is read is an error, not a crash") {
  for (const char* role : {"embed.token", "embed.position"}) {
    TempDir dir;
    Shapes shapes = mha_shapes();
    shapes.push_back({"emb", {}});
    write_tensors(dir / "model.safetensors", shapes);
    std::ofstream(dir / "map.json")
        << layout_json("encoder", std::string(R"(, ")") + role + R"(": "emb")");
    const std::string msg =
        error_of([&] { (void)load_model(dir.path(), with_layout_file(dir / "map.json")); });
    CAPTURE(role);
    CHECK_MESSAGE(contains(msg, "tensor 'emb' has shape [], expected a matrix"), msg);
  }
  TempDir dir;
  Shapes shapes = mha_shapes();
  shapes.push_back({"up", {}});
  write_tensors(dir / "model.safetensors", shapes);
  std::ofstream(dir / "map.json") << layout_json("encoder", R"(, "encoder.ffn.up.weight": "up")");
  const std::string msg =
      error_of([&] { (void)load_model(dir.path(), with_layout_file(dir / "map.json")); });
  CHECK_MESSAGE(contains(msg, "tensor 'up' has shape [], expected a matrix"), msg);
}

TEST_CASE("model hostile: q/k of width 0 are an error, not NaN maps") {
  TempDir dir;
  write_tensors(dir / "model.safetensors", mha_shapes({0, 4}, {0, 4}));
  ConfigOverrides o;
  o.n_heads = 1;
  const std::string msg = error_of([&] { (void)load_model(dir.path(), o); });
  CHECK_MESSAGE(
      contains(msg, "tensor 'q.weight' has shape [0, 4]: width 0 must be in [1, 2147483647]"), msg);
}

TEST_CASE("model hostile: a k weight [8, 7] in an encoder's self-attention is an error naming it") {
  TempDir dir;
  write_tensors(dir / "model.safetensors",
                {{"q.weight", {8, 8}}, {"k.weight", {8, 7}}, {"v.weight", {8, 8}}});
  std::ofstream(dir / "map.json") << layout_json("encoder");
  const std::string msg =
      error_of([&] { (void)load_model(dir.path(), with_layout_file(dir / "map.json")); });
  CHECK_MESSAGE(
      contains(msg,
               "tensor 'k.weight' has shape [8, 7], but self-attention keys and values read "
               "the d_model = 8 wide input: expected [8, 8]"),
      msg);
}

TEST_CASE("model hostile: config.json integers are read as int64 and range-checked") {
  struct Case {
    std::string config, message;
  };
  const Case cases[] = {
      {R"({"n_heads": 4294967298})",
       "config.json: n_heads = 4294967298: expected an integer in [1, 2147483647]"},
      {R"({"num_attention_heads": -2})",
       "config.json: num_attention_heads = -2: expected an integer in [1, 2147483647]"},
      {R"({"n_heads": 2.5})", "config.json: n_heads = 2.5: expected an integer in [1, 2147483647]"},
      // A whole number out of int's range contradicts the weights, and is named with the tensor.
      {R"({"n_heads": 2, "hidden_size": 18446744073709551615})",
       "config.json: hidden_size = 18446744073709551615, but the weights have 4 (d_model, from "
       "tensor 'q.weight' of "
       "shape [4, 4])"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    write_tensors(dir / "model.safetensors", mha_shapes());
    std::ofstream(dir / "config.json") << c.config;
    CAPTURE(c.config);
    const std::string msg = error_of([&] { (void)load_model(dir.path(), {}); });
    CHECK_MESSAGE(contains(msg, c.message), msg);
  }
}

TEST_CASE(
    "model hostile: layer_norm_eps from config.json or a layout file must be finite, > 0 and < 1") {
  for (const char* eps : {"-1", "0", "1e300", "2"}) {
    CAPTURE(eps);
    TempDir dir;
    write_tensors(dir / "model.safetensors", mha_shapes());
    std::ofstream(dir / "config.json") << R"({"n_heads": 2, "layer_norm_eps": )" << eps << "}";
    const std::string msg = error_of([&] { (void)load_model(dir.path(), {}); });
    CHECK_MESSAGE(contains(msg, "config.json: layer_norm_eps = "), msg);
    CHECK_MESSAGE(contains(msg, "expected a number in (0, 1)"), msg);

    TempDir dir2;
    write_tensors(dir2 / "model.safetensors", mha_shapes());
    const std::string map = layout_json("encoder");
    std::ofstream(dir2 / "map.json")
        << map.substr(0, map.size() - 1) << R"(, "layer_norm_eps": )" << eps << "}";
    const std::string msg2 =
        error_of([&] { (void)load_model(dir2.path(), with_layout_file(dir2 / "map.json")); });
    CHECK_MESSAGE(contains(msg2, "map.json: \"layer_norm_eps\" = "), msg2);
    CHECK_MESSAGE(contains(msg2, "expected a number in (0, 1)"), msg2);
  }
}

TEST_CASE("model hostile: a fused-q/k/v detection shape [0, 2^62] does not overflow 3 * shape") {
  // UBSan (ATTNVIZ_SANITIZE) aborts on the int64 overflow the old `s[0] == 3 * s[1]` made.
  TempDir dir;
  write_tensors(dir / "model.safetensors", {{"h.0.attn.c_attn.weight", {0, int64_t{1} << 62}}});
  const std::string msg = error_of([&] { (void)load_model(dir.path(), {}); });
  CHECK_MESSAGE(contains(msg, "no known layout fits these tensor names (h.0.attn.c_attn.weight)"),
                msg);
}

TEST_CASE("model hostile: JSON nested 200,000 deep is refused past 128 levels, naming the file") {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  SUBCASE("config.json") {
    TempDir dir;
    write_tensors(dir / "model.safetensors", mha_shapes());
    std::ofstream(dir / "config.json") << R"({"n_heads": )" << deep << "}";
    const std::string msg = error_of([&] { (void)load_model(dir.path(), {}); });
    CHECK_MESSAGE(
        contains(msg, (dir / "config.json").string() + ": JSON nests deeper than 128 levels"), msg);
  }
  SUBCASE("layout file") {
    TempDir dir;
    write_tensors(dir / "model.safetensors", mha_shapes());
    std::ofstream(dir / "map.json") << R"({"roles": {}, "name": )" << deep << "}";
    const std::string msg =
        error_of([&] { (void)load_model(dir.path(), with_layout_file(dir / "map.json")); });
    CHECK_MESSAGE(
        contains(msg, (dir / "map.json").string() + ": JSON nests deeper than 128 levels"), msg);
  }
  SUBCASE("shard index") {
    TempDir dir;
    std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map": )" << deep << "}";
    const std::string msg = error_of([&] { (void)TensorSource::open(dir.path()); });
    CHECK_MESSAGE(contains(msg, "model.safetensors.index.json: JSON nests deeper than 128 levels"),
                  msg);
  }
  SUBCASE("a metadata value stays text") {
    TempDir dir;
    std::vector<float> data(17, 0.5f);
    write_safetensors(dir / "model.safetensors",
                      {{"q.weight", {2, 2}, data.data()},
                       {"k.weight", {2, 2}, data.data()},
                       {"v.weight", {2, 2}, data.data()}},
                      {{"n_heads", deep}});
    const std::string msg = error_of([&] { (void)load_model(dir.path(), {}); });
    CHECK_MESSAGE(contains(msg, "n_heads = \"[[[["), msg);  // a string, so not an integer
  }
}

TEST_CASE(
    "model hostile: shard index entries must be file names inside the folder, holding their "
    "tensors") {
  struct Case {
    std::string shard, message;
  };
  const Case cases[] = {
      {"../model.safetensors",
       "expected a shard file name inside the index's folder (no '/', not '..')"},
      {"/etc/passwd", "expected a shard file name inside the index's folder (no '/', not '..')"},
      {"sub/a.safetensors",
       "expected a shard file name inside the index's folder (no '/', not '..')"},
      {"absent.safetensors", "no such shard file in"},
      {std::string(300, 'x') + ".safetensors",
       "no such shard file in"},  // too long for the file system
      {"b.safetensors", "tensor 'q.weight' is not in shard "},
  };
  for (const auto& c : cases) {
    CAPTURE(c.shard);
    TempDir dir;
    std::filesystem::create_directory(dir / "m");
    std::filesystem::create_directory(dir / "m" / "sub");
    write_tensors(dir / "model.safetensors", mha_shapes());  // outside the model folder
    write_tensors(dir / "m" / "a.safetensors", {{"q.weight", {4, 4}}});
    write_tensors(dir / "m" / "b.safetensors", {{"k.weight", {4, 4}}});
    write_tensors(dir / "m" / "sub" / "a.safetensors", {{"q.weight", {4, 4}}});
    std::ofstream(dir / "m" / "model.safetensors.index.json")
        << R"({"weight_map": {"q.weight": ")" << c.shard << R"(", "k.weight": "b.safetensors"}})";
    const std::string msg = error_of([&] { (void)TensorSource::open(dir / "m"); });
    CHECK_MESSAGE(contains(msg, (dir / "m" / "model.safetensors.index.json").string()), msg);
    CHECK_MESSAGE(contains(msg, c.message), msg);
  }
}
