// attnviz positions: the sinusoidal encoding equal to the paper's formula, a learned table equal to
// the file's rows, rotary similarity equal to mean_i cos((m − n)·θ_i), and the refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

nlohmann::json positions_json(const std::string& args) {
  const auto r = run_attnviz("positions " + args + " --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return ab / std::sqrt(aa * bb);
}

}  // namespace

TEST_CASE(
    "positions: sinusoidal, PE(p, 2i) = sin(p / 10000^(2i/d)) and cos at 2i + 1, cosine "
    "similarity") {
  const auto j = positions_json("-m samples/transformer --positions 12");  // d_model 64
  CHECK(j.at("kind") == "sinusoidal");
  const auto enc = j.at("encoding");
  REQUIRE(enc.size() == 12);
  std::vector<std::vector<double>> rows;
  for (int p = 0; p < 12; ++p) {
    std::vector<double> row;
    for (int i = 0; i < 32; ++i) {
      const double angle = p / std::pow(10000.0, 2.0 * i / 64);
      row.push_back(std::sin(angle));
      row.push_back(std::cos(angle));
    }
    for (int d = 0; d < 64; ++d)
      CHECK(enc[p][d].get<double>() == doctest::Approx(row[d]).epsilon(1e-5).scale(1));
    rows.push_back(row);
  }
  const auto sim = j.at("similarity");
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 12; ++b)
      CHECK(sim[a][b].get<double>() == doctest::Approx(cosine(rows[a], rows[b])).epsilon(1e-5));
  }
}

TEST_CASE("positions: learned, the position table's rows, rotary, a function of m − n only") {
  const auto learned = positions_json("-m tests/fixtures/torch/hf_gpt2 --positions 10");
  CHECK(learned.at("kind") == "learned");
  const auto file = SafetensorsFile::open("tests/fixtures/torch/hf_gpt2/model.safetensors");
  const Tensor wpe = file.load("transformer.wpe.weight");  // [64, 32]
  const auto enc = learned.at("encoding");
  for (int p = 0; p < 10; ++p) {
    for (int d = 0; d < 32; ++d)
      CHECK(enc[p][d].get<float>() == wpe.data[static_cast<size_t>(p * 32 + d)]);
  }
  const auto rotary =
      positions_json("-m tests/fixtures/torch/hf_llama --positions 20");  // head_dim 8, θ 10000
  CHECK(rotary.at("kind") == "rotary");
  const auto sim = rotary.at("similarity");
  for (int m = 0; m < 20; ++m) {
    for (int n = 0; n < 20; ++n) {
      double want = 0;
      for (int i = 0; i < 4; ++i) want += std::cos((m - n) * std::pow(10000.0, -2.0 * i / 8)) / 4;
      CHECK(sim[m][n].get<double>() == doctest::Approx(want).epsilon(1e-5).scale(1));
    }
  }
}

TEST_CASE(
    "positions: --png writes both figures, a model without positions, too many positions, a bad "
    "format refused") {
  attnviz::test::TempDir dir;
  const auto r =
      run_attnviz("positions -m tests/fixtures/torch/hf_llama --png " + (dir / "p").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "hf_llama · rotary positions"));
  CHECK(std::filesystem::exists(dir / "p" / "positions.encoding.png"));
  CHECK(std::filesystem::exists(dir / "p" / "positions.similarity.png"));
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"-m samples/mha", "positions: mha has no positional encoding"},
           {"-m tests/fixtures/torch/hf_gpt2 --positions 65",
            "65 positions asked for, but hf_gpt2 has 64"},
           {"-m samples/transformer --format csv", "positions --format: text or json"}}) {
    const auto e = run_attnviz("positions " + c.args);
    CAPTURE(c.args);
    CHECK(e.exit_code == 2);
    CHECK_MESSAGE(contains(e.err, c.message), e.err);
  }
}

TEST_CASE("positions: the rope scaling is named, more than 8,192 positions are refused") {
  const auto j = positions_json("-m tests/fixtures/torch/hf_llama32 --positions 4");
  CHECK(contains(j.at("encoding_what").get<std::string>(), "with Llama 3's frequency scaling"));
  const auto big = run_attnviz("positions -m samples/transformer --positions 9000");
  CHECK(big.exit_code == 2);
  CHECK(contains(big.err, "the n × n similarity is kept whole, so at most 8192"));
}
