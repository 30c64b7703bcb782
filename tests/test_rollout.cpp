// Attention rollout: by hand on two 2 × 2 layers, and equal to a NumPy rollout of the planted
// model's maps (tests/fixtures/planted/make_planted.py) through `attnviz rollout --save`.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/analysis/rollout.hpp"
#include "attnviz/io/safetensors.hpp"
#include "emit_blocks.hpp"
#include "planted_reference.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

// Two layers of two heads on 2 tokens, fed as forward would; the rollout after each layer.
std::vector<Matrix> rollout_of(const std::vector<std::vector<Matrix>>& layers, RolloutOptions o) {
  std::vector<Matrix> out;
  RolloutCollector collector(o, [&](const RolloutMap& m) { out.push_back(*m.values); });
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t h = 0; h < layers[l].size(); ++h) {
      MapInfo info;
      info.id = HeadId{"", static_cast<int>(l), Site::self, static_cast<int>(h)};
      info.n_heads = static_cast<int>(layers[l].size());
      info.n_query = info.n_key = static_cast<int>(layers[l][h].rows());
      attnviz::test::emit_blocks(collector, info, layers[l][h], layers[l][h], 1);
    }
  }
  return out;
}

Matrix m2(float a, float b, float c, float d) {
  Matrix m(2, 2);
  m << a, b, c, d;
  return m;
}

}  // namespace

TEST_CASE("rollout: by hand, mean and max of heads, the residual, a zero row, and one head") {
  const std::vector<std::vector<Matrix>> layers = {{m2(1, 0, 1, 0), m2(1, 0, 0, 1)},
                                                   {m2(1, 0, 0, 1), m2(1, 0, 0, 1)}};
  // mean of layer 0 = [[1, 0], [0.5, 0.5]]; Â = 0.5·A + 0.5·I = [[1, 0], [0.25, 0.75]]; layer 1: Â
  // = I.
  const auto mean = rollout_of(layers, {});
  REQUIRE(mean.size() == 2);
  CHECK(mean[0](1, 0) == doctest::Approx(0.25));
  CHECK(mean[0](1, 1) == doctest::Approx(0.75));
  CHECK(mean[0](0, 1) == 0.0f);
  CHECK(mean[1](1, 0) == doctest::Approx(0.25));  // R₂ = I · R₁
  // max of layer 0 = [[1, 0], [1, 1]]: Â row 1 = [0.5, 1.0] / 1.5
  RolloutOptions max;
  max.combine = HeadCombine::max;
  CHECK(rollout_of(layers, max)[0](1, 0) == doctest::Approx(0.5 / 1.5));
  // residual 0.2 on head 0 alone: Â row 1 = 0.8·[1, 0] + 0.2·[0, 1]
  RolloutOptions head0;
  head0.head = 0;
  head0.residual = 0.2f;
  const auto one = rollout_of(layers, head0);
  CHECK(one[0](1, 0) == doctest::Approx(0.8));
  CHECK(one[0](1, 1) == doctest::Approx(0.2));
  // A fully masked row (all zero) keeps the token itself: the identity's row.
  const auto zero_row = rollout_of({{m2(1, 0, 0, 0)}}, {});
  CHECK(zero_row[0](1, 1) == doctest::Approx(1.0));
  CHECK(zero_row[0](1, 0) == 0.0f);
  // Two layers multiply: Â₂ = [[1, 0], [0.5, 0.5]] after Â₁ = [[1, 0], [0.25, 0.75]]: row 1 of Â₂Â₁
  // = [0.625, 0.375]
  const auto two = rollout_of({{m2(1, 0, 0.5f, 0.5f)}, {m2(1, 0, 1, 0)}}, {});
  CHECK(two[1](1, 0) == doctest::Approx(0.5 * 1 + 0.5 * 0.25));
  CHECK(two[1](1, 1) == doctest::Approx(0.5 * 0.75));
}

TEST_CASE("rollout: attnviz rollout --save equals NumPy's rollout of the planted model's maps") {
  const auto planted = attnviz::test::planted_repeat_input();
  const std::string& ids = planted.ids;
  const int n = planted.n;
  attnviz::test::TempDir dir;
  const auto& cases = planted.input.at("rollout");
  for (const auto& c : cases) {
    std::string flags = " --combine " + c.at("combine").get<std::string>() + " --residual " +
                        std::to_string(c.at("residual").get<double>());
    if (!c.at("head").is_null()) flags += " --head " + std::to_string(c.at("head").get<int>());
    const auto out = dir / "r.safetensors";
    const auto r = run_attnviz(
        "rollout -m tests/fixtures/planted/planted-heads --no-heatmap --table none --ids '" + ids +
        "' --save " + out.string() + flags);
    CAPTURE(flags);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto file = SafetensorsFile::open(out);
    for (size_t layer = 0; layer < c.at("layers").size(); ++layer) {
      const std::string name = "rollout.layer" + std::to_string(layer) + ".self";
      CHECK_FALSE(file.find(name + ".scores"));  // a rollout has no scores
      CHECK(contains(file.metadata().at(name + ".kind"), "rollout: "));
      CAPTURE(layer);
      CHECK(attnviz::test::worst_difference(file.load(name + ".probs"), c.at("layers")[layer], n) <
            2e-5);
    }
  }
}

TEST_CASE("rollout: scores are refused, and the maps are titled as rollout") {
  const std::string m =
      "rollout -m tests/fixtures/planted/planted-heads --probe repeat:4 --color=never";
  const auto scores = run_attnviz(m + " --table scores");
  CHECK(scores.exit_code == 2);
  CHECK(contains(scores.err, "rollout maps are products of attention weights, with no scores"));
  const auto shown = run_attnviz(m + " --layer 1 --no-heatmap");
  REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  CHECK(contains(shown.out, "rollout · layer 1 · self · rollout: mean of heads, residual 0.5"));
  CHECK_FALSE(contains(shown.out, "layer 0"));  // --layer picks the rollout shown
  const auto cross = run_attnviz(m + " --site cross");
  CHECK(cross.exit_code == 2);
  CHECK(cross.out.empty());
  // With no residual a fully masked row still keeps the token itself.
  RolloutOptions none;
  none.residual = 0.0f;
  std::vector<Matrix> got;
  RolloutCollector c(none, [&](const RolloutMap& r) { got.push_back(*r.values); });
  MapInfo info;
  info.n_heads = 1;
  info.n_query = info.n_key = 2;
  Matrix zero_row(2, 2);
  zero_row << 1, 0, 0, 0;
  attnviz::test::emit_blocks(c, info, zero_row, zero_row, 2);
  REQUIRE(got.size() == 1);
  CHECK(got[0](1, 1) == 1.0f);
}
