// Attention flow: maximum flow on hand-checked graphs, flow through one layer equal to that layer,
// and `attnviz rollout --flow --save` equal to networkx's Edmonds–Karp on the planted model's layer
// graph (tests/fixtures/planted/make_planted.py, as Abnar & Zuidema's code computes it).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnviz/analysis/attention_flow.hpp"
#include "attnviz/analysis/max_flow.hpp"
#include "attnviz/analysis/rollout.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "emit_blocks.hpp"
#include "error_of.hpp"
#include "planted_reference.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

TEST_CASE("max flow: the textbook network (CLRS figure 26.1) carries 23, and cuts bound it") {
  // s = 0, v1..v4 = 1..4, t = 5
  FlowNetwork g(6);
  g.add_edge(0, 1, 16);
  g.add_edge(0, 2, 13);
  g.add_edge(2, 1, 4);
  g.add_edge(1, 3, 12);
  g.add_edge(3, 2, 9);
  g.add_edge(2, 4, 14);
  g.add_edge(4, 3, 7);
  g.add_edge(3, 5, 20);
  g.add_edge(4, 5, 4);
  CHECK(g.max_flow(0, 5) == doctest::Approx(23));
  CHECK(g.max_flow(0, 5) == doctest::Approx(23));  // a second run starts from the capacities again
  CHECK(g.max_flow(5, 0) == 0);                    // no edge leaves t
  CHECK(g.max_flow(2, 3) == doctest::Approx(11));  // 2→1→3 (4) and 2→4→3 (7)
  FlowNetwork bottleneck(4);                       // two paths through one edge of 0.25
  bottleneck.add_edge(0, 1, 1.0);
  bottleneck.add_edge(0, 2, 1.0);
  bottleneck.add_edge(1, 3, 0.25);
  bottleneck.add_edge(2, 3, 0.5);
  bottleneck.add_edge(1, 2, 0.125);
  CHECK(bottleneck.max_flow(0, 3) == doctest::Approx(0.75));
  CHECK_THROWS_AS(bottleneck.max_flow(0, 0), Error);
  CHECK_THROWS_AS(bottleneck.max_flow(0, 9), Error);
}

TEST_CASE("attention flow: through one layer it is that layer, through two it is bounded by both") {
  Matrix a(3, 3);
  a << 1, 0, 0, 0.25f, 0.75f, 0, 0.2f, 0.3f, 0.5f;
  const Matrix one = attention_flow({a}, 2);
  CHECK((one - a).cwiseAbs().maxCoeff() < 1e-6f);
  // Two layers: token 1 after layer 2 has edges of 0.5 to tokens 0 and 1 after layer 1, whose edges
  // down are a's rows. Flow to input 0: 1→0→0 (min 0.5, 1) plus 1→1→0 (min 0.5, 0.25) = 0.75; to
  // input 1: 1→1→1 (min 0.5, 0.75) = 0.5; the row divided by 1.25.
  Matrix b(3, 3);
  b << 1, 0, 0, 0.5f, 0.5f, 0, 1.0f / 3, 1.0f / 3, 1.0f / 3;
  const Matrix two = attention_flow({a, b}, 1);
  CHECK(two(1, 0) == doctest::Approx(0.75 / 1.25));
  CHECK(two(1, 1) == doctest::Approx(0.5 / 1.25));
  CHECK(two(1, 2) == 0.0f);
  CHECK(two(0, 0) == 1.0f);
  for (int i = 0; i < 3; ++i) CHECK(two.row(i).sum() == doctest::Approx(1.0));
  CHECK((attention_flow({a, b}, 3) - two).cwiseAbs().maxCoeff() == 0.0f);  // threads change nothing
  CHECK_THROWS_AS(attention_flow({}, 1), Error);
  CHECK_THROWS_AS(attention_flow({a, Matrix::Zero(2, 2)}, 1), Error);
}

TEST_CASE("attention flow: a NaN weight is refused by name, not dropped as a missing edge") {
  RolloutOptions o;
  o.flow = true;
  RolloutCollector c(o, [](const RolloutMap&) {});
  MapInfo info;
  info.n_heads = 1;
  info.n_query = info.n_key = 2;
  Matrix nan_map(2, 2);
  nan_map << 1, 0, std::numeric_limits<float>::quiet_NaN(), 0.5f;
  const std::string err =
      attnviz::test::error_of([&] { attnviz::test::emit_blocks(c, info, nan_map, nan_map, 2); });
  CHECK(contains(err,
                 "attention flow: layer 0 of the model holds NaN or infinite attention weights"));
}

TEST_CASE("attention flow: a NaN in a layer past the one shown is never read") {
  RolloutOptions o;
  o.flow = true;
  o.flow_layer = 0;
  std::vector<Matrix> got;
  RolloutCollector c(o, [&](const RolloutMap& m) { got.push_back(*m.values); });
  Matrix ok(2, 2), nan_map(2, 2);
  ok << 1, 0, 0.5f, 0.5f;
  nan_map << 1, 0, std::numeric_limits<float>::quiet_NaN(), 0.5f;
  for (int layer = 0; layer < 2; ++layer) {
    MapInfo info;
    info.id.layer = layer;
    info.n_heads = 1;
    info.n_query = info.n_key = 2;
    attnviz::test::emit_blocks(c, info, layer == 0 ? ok : nan_map, layer == 0 ? ok : nan_map, 2);
  }
  REQUIRE(got.size() == 1);
  CHECK(got[0](1, 0) ==
        doctest::Approx(0.25 / 1.0).epsilon(1e-6));  // Â = ½A + ½I: row 1 is [0.25, 0.75]
}

TEST_CASE("attention flow: attnviz rollout --flow --save equals networkx on the planted model") {
  const auto planted = attnviz::test::planted_repeat_input();
  const std::string& ids = planted.ids;
  const int n = planted.n;
  attnviz::test::TempDir dir;
  const auto& cases = planted.input.at("flow");
  REQUIRE(cases.size() == 2);
  for (const auto& c : cases) {
    const std::string flags = " --combine " + c.at("combine").get<std::string>() + " --residual " +
                              std::to_string(c.at("residual").get<double>());
    const auto& layers = c.at("layers");
    for (size_t layer = 0; layer < layers.size(); ++layer) {
      const auto out = dir / ("f" + std::to_string(layer) + ".safetensors");
      const auto r = run_attnviz(
          "rollout --flow -m tests/fixtures/planted/planted-heads --no-heatmap --table none --ids "
          "'" +
          ids + "' --layer " + std::to_string(layer) + " --save " + out.string() + flags);
      CAPTURE(flags);
      CAPTURE(layer);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const auto file = SafetensorsFile::open(out);
      const std::string name = "flow.layer" + std::to_string(layer) + ".self";
      CHECK(contains(file.metadata().at(name + ".kind"), "attention flow: "));
      CHECK(attnviz::test::worst_difference(file.load(name + ".probs"), layers[layer], n) < 2e-5);
    }
  }
}

TEST_CASE("attention flow: past its token limit it refuses, naming the cost, rollout does not") {
  std::string ids;
  for (int i = 0; i < 130; ++i) ids += std::to_string(i * 7 % 48) + " ";
  const std::string m =
      "rollout -m tests/fixtures/torch/hf_qwen2 --ids '" + ids + "' --no-heatmap --table none";
  const auto flow = run_attnviz(m + " --flow");  // 130 tokens
  CHECK(flow.exit_code == 2);
  // refused before the model runs: the bound and why
  CHECK(contains(
      flow.err,
      "--ids: 130 tokens; rollout --flow takes at most 128 (one maximum flow per token pair, "
      "about L·N⁴ steps)"));
  CHECK(flow.out.empty());
  const auto rollout = run_attnviz(m);
  CHECK_MESSAGE(rollout.exit_code == 0, rollout.err);
  const auto titled = run_attnviz(
      "rollout --flow -m tests/fixtures/planted/planted-heads --probe repeat:4 --color=never "
      "--no-heatmap --layer 1");
  REQUIRE_MESSAGE(titled.exit_code == 0, titled.err);
  CHECK(
      contains(titled.out, "flow · layer 1 · self · attention flow: mean of heads, residual 0.5"));
}
