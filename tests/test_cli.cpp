// The CLI end to end: exit codes, messages, --save contents, formats, atomic outputs.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/io/npy.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE("cli: the sample runs and --save holds every head's scores and probs") {
  TempDir dir;
  const auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --causal --color=never --save " +
                  (dir / "maps.safetensors").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "mha · layer 0 · self · mask: causal\n"));  // the heads side by side
  CHECK(contains(r.out, "head 3"));
  const auto file = SafetensorsFile::open(dir / "maps.safetensors");
  REQUIRE(file.find("layer0.self.probs"));
  CHECK(file.find("layer0.self.probs")->shape == std::vector<int64_t>{4, 10, 10});
  CHECK(file.find("layer0.self.scores")->shape == std::vector<int64_t>{4, 10, 10});
  CHECK(file.metadata().at("layer0.self.mask") == "causal");
  CHECK(file.find("hidden")->shape == std::vector<int64_t>{10, 128});
  CHECK(nlohmann::json::parse(file.metadata().at("layer0.self.query_labels"))[1] == "cat");
  const Tensor p = file.load("layer0.self.probs");
  for (int h = 0; h < 4; ++h) {
    for (int i = 0; i < 10; ++i) {
      double sum = 0;
      for (int j = 0; j < 10; ++j) {
        const float v = p.data[(h * 10 + i) * 10 + j];
        if (j > i) REQUIRE(v == 0.0f);
        sum += v;
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("cli: cross-attention maps are target × source") {
  TempDir dir;
  const auto r = run_attnviz(
      "run -m samples/mha -t samples/cross/target.txt --source-tokens samples/cross/source.txt "
      "--table none --no-heatmap --save " +
      (dir / "x.safetensors").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto file = SafetensorsFile::open(dir / "x.safetensors");
  CHECK(file.find("layer0.cross.probs")->shape == std::vector<int64_t>{4, 8, 10});
}

TEST_CASE(
    "cli: the annotated transformer's all-zero mask is reported, and the rows are zero, not "
    "uniform") {
  TempDir dir;
  const auto r =
      run_attnviz("run -m samples/mha -t - --mask samples/mask_all_zeros.txt --no-heatmap --save " +
                      (dir / "m.safetensors").string(),
                  "a b c d");
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err,
                 "attnviz: warning: layer0.self: every key is masked for query rows 0-3 (4 of 4)"));
  const Tensor p = SafetensorsFile::open(dir / "m.safetensors").load("layer0.self.probs");
  for (float v : p.data) REQUIRE(v == 0.0f);
}

TEST_CASE("cli: json and csv tables are data") {
  auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --format json --table both --head 1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[1]["keys"].size() == 10);
  CHECK(j[1]["values"].size() == 10);
  r = run_attnviz("run -m samples/mha -t samples/english.txt --format csv");
  REQUIRE(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 11);  // header + 10 rows
  CHECK(r.out.rfind("query,The,cat,sat", 0) == 0);
  r = run_attnviz("run -m samples/mha -t samples/english.txt --format csv --table both");
  CHECK(r.exit_code == 2);
}

TEST_CASE("cli: embeddings from .npy feed the layer, a wrong width is an error") {
  TempDir dir;
  write_npy(dir / "x.npy", Matrix::Ones(3, 128));
  auto r =
      run_attnviz("run -m samples/mha --embeddings " + (dir / "x.npy").string() + " --no-heatmap");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  write_npy(dir / "y.npy", Matrix::Ones(3, 64));
  r = run_attnviz("run -m samples/mha --embeddings " + (dir / "y.npy").string());
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "width 64 (shape [3, 64]), but the model's d_model is 128"));
}

TEST_CASE("cli: bad input gets a clear error and its exit code") {
  struct Case {
    std::string args, stdin_text, message;
    int code;
  };
  const Case cases[] = {
      {"run -m samples/nope -t samples/english.txt", "", "samples/nope: no such file or directory",
       1},
      {"run -m samples/mha -t -", "  \n", "standard input: no tokens (the input is empty)", 1},
      {"run -m samples/mha -t -", "ok \xc3\x28", "standard input: invalid UTF-8 at byte 3", 1},
      {"run -m samples/mha -t samples/english.txt --heads 8", "",
       "n_heads = 8 in the command line contradicts", 2},
      {"run -m samples/mha -t samples/english.txt --pad 11", "",
       "--pad 11: there are only 10 tokens", 2},
      {"run -m samples/mha -t samples/english.txt --mask samples/mask_all_zeros.txt", "",
       "line 1 (row 0) has 4 entries; expected 10 rows of 10", 1},
      {"run -m samples/mha", "", "no target input", 2},
      {"run -m samples/mha -t samples/english.txt --qk-scale -1", "", "--qk-scale '-1'", 2},
      {"run -m samples/mha -t samples/english.txt --bogus", "", "bogus", 2},
      {"run -m samples/mha --ids '1 x'", "", "'x' is not a token id", 1},
      {"inspect samples/english.txt", "", "samples/english.txt", 1},
      {"run -m samples/mha -t samples/english.txt --qk-scale inf", "", "--qk-scale 'inf'", 2},
      {"run -m samples/mha -t samples/english.txt --head 9", "",
       "--head 9: the model has 4 heads (0–3)", 2},
      {"run -m samples/mha -t samples/english.txt --layer 5", "",
       "--layer 5: the model has 1 layer (0)", 2},
      {"run -m samples/transformer -t samples/cross/target.txt --source-tokens "
       "samples/cross/source.txt --format csv",
       "", "--format csv writes one table, but 6 maps are selected", 2},
      {"run -m samples/mha -t samples/cross/target.txt --source-tokens samples/cross/source.txt "
       "--causal",
       "", "a lone attention module given a source does not have", 2},
      {"run -m samples/mha -t samples/english.txt --heads 0", "", "'0' is not a positive number",
       2},
  };
  for (const auto& c : cases) {
    const auto r = run_attnviz(c.args, c.stdin_text);
    CAPTURE(c.args);
    CHECK(r.exit_code == c.code);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    if (c.code == 1) CHECK(r.err.rfind("attnviz: error: ", 0) == 0);
  }
}

TEST_CASE("cli: a failed run leaves no half-written output") {
  TempDir dir;
  const auto r = run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --save " +
                             (dir / "missing" / "m.safetensors").string());
  CHECK(r.exit_code == 1);
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("cli: --png writes one PNG per selected head") {
  TempDir dir;
  const auto r =
      run_attnviz("run -m samples/mha -t samples/chinese.txt --no-heatmap --table none --png " +
                  dir.path().string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (int h = 0; h < 4; ++h) {
    const auto png = dir / ("layer0.self.head" + std::to_string(h) + ".png");
    REQUIRE(std::filesystem::exists(png));
    CHECK(attnviz::test::slurp(png).substr(1, 3) == "PNG");
  }
}

TEST_CASE("cli: a long --ids list is a list, not a file name") {
  std::string ids;
  for (int i = 0; i < 3000; ++i) ids += std::to_string(i % 7) + " ";
  const auto r = run_attnviz("run -m samples/mha --ids '" + ids + "' --no-heatmap --table none");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
}

TEST_CASE("cli: a shard index that names no tensor is an error, not a crash") {
  TempDir dir;
  std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map": {}})";
  const auto r = run_attnviz("inspect " + dir.path().string());
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "\"weight_map\" names no tensor"));
}
