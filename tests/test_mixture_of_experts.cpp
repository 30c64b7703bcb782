// A mixture of experts in the FFN slot (Mixtral, Qwen3-MoE): routing and the weighted sum of the
// chosen experts against hand calculations, experts bound only when a token is routed to them, and
// the checks of a file's router, experts and config.json.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "attnviz/compute/mixture_of_experts.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"  // contains
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

// Router logits [0, ln 2, 0, −5] for token [1, 0] and [0, 0, ln 3, −5] for token [0, 1].
Matrix router() {
  Matrix r(4, 2);
  r << 0, 0, std::log(2.0f), 0, 0, std::log(3.0f), -5, -5;
  return r;
}

// Expert e: relu((e + 1) · x), a plain FFN with up = (e + 1)·I and down = I.
FeedForwardWeights scaled_relu(int e) {
  return FeedForwardWeights{Linear{Matrix::Identity(2, 2) * float(e + 1), {}},
                            Linear{Matrix::Identity(2, 2), {}}, std::nullopt};
}

}  // namespace

TEST_CASE("experts: the router's softmax, its top k and their renormalisation") {
  Matrix logits(2, 4);
  logits << std::log(1.0f), std::log(2.0f), std::log(3.0f), std::log(4.0f),  // p = .1 .2 .3 .4
      0, 0, 0, 0;                                                            // a four-way tie
  const Routing kept = route(logits, 2, false);
  CHECK(kept.experts == std::vector<int>{3, 2, 0, 1});
  CHECK(kept.weights[0] == doctest::Approx(0.4));
  CHECK(kept.weights[1] == doctest::Approx(0.3));
  CHECK(kept.weights[2] == doctest::Approx(0.25));
  const Routing renormalised = route(logits, 2, true);
  CHECK(renormalised.weights[0] == doctest::Approx(0.4 / 0.7));
  CHECK(renormalised.weights[1] == doctest::Approx(0.3 / 0.7));
  CHECK(renormalised.weights[2] == doctest::Approx(0.5));  // ties: the lower index first
}

TEST_CASE("experts: each token gets the weighted sum of its top-k experts, the rest never read") {
  std::vector<int> bound;
  ExpertWeights w{Linear{router(), {}}, 4, [&](int e) {
                    bound.push_back(e);
                    return scaled_relu(e);
                  }};
  Matrix x(2, 2);
  x << 1, 0, 0, 1;
  // Token 0: p ∝ [1, 2, 1, e⁻⁵], top 2 = expert 1, then expert 0 (the tie with 2 goes to the lower
  // index), renormalised 2/3 and 1/3: y = 2/3 · 2·[1, 0] + 1/3 · [1, 0] = [5/3, 0]. Token 1: p ∝
  // [1, 1, 3, e⁻⁵], experts 2 and 0 at 3/4 and 1/4: y = 3/4 · 3·[0, 1] + 1/4 · [0, 1] = [0, 5/2].
  Routing routing;
  const Matrix y =
      mixture_of_experts(x, w, MixtureOfExperts{4, 2, true}, Activation::relu, &routing);
  Matrix expected(2, 2);
  expected << 5.0f / 3, 0, 0, 2.5f;
  CLOSE(y, expected, 1e-6f);
  CHECK(routing.experts == std::vector<int>{1, 0, 2, 0});
  // Each expert used is bound once, in index order; expert 3 never.
  CHECK(bound == std::vector<int>{0, 1, 2});

  // Without renormalisation the weights are the softmax's own: token 0 gets 2/(4 + e⁻⁵) and
  // 1/(4 + e⁻⁵).
  const double z = 4 + std::exp(-5.0);
  const Matrix raw = mixture_of_experts(x, w, MixtureOfExperts{4, 2, false}, Activation::relu);
  // A NaN router logit has no top k: the token's output is NaN, not an arbitrary expert's.
  Matrix nan_x = x;
  nan_x(1, 0) = std::nanf("");
  const Matrix nan_y = mixture_of_experts(nan_x, w, MixtureOfExperts{4, 2, true}, Activation::relu);
  CHECK(nan_y.row(0).allFinite());
  CHECK(nan_y.row(1).array().isNaN().all());
  CHECK(raw(0, 0) == doctest::Approx((2 * 2 + 1) / z).epsilon(1e-6));
  CHECK(raw(1, 1) == doctest::Approx((3 * 3 + 1) / (5 + std::exp(-5.0))).epsilon(1e-6));
}

namespace {

// A decoder layer with 4 experts under a layout file: q/k/v, the router and expert e's up/down.
void write_moe(const TempDir& dir, int experts_held, const std::string& config,
               const std::string& expert_pattern = "h.{layer}.e.{expert}.up") {
  std::vector<float> eye = {1, 0, 0, 1}, r(8);
  const Matrix rm = router();
  for (int i = 0; i < 8; ++i) r[size_t(i)] = rm(i / 2, i % 2);
  std::vector<std::vector<float>> ups;
  for (int e = 0; e < experts_held; ++e) ups.push_back({float(e + 1), 0, 0, float(e + 1)});
  std::vector<TensorView> t = {{"h.0.q", {2, 2}, eye.data()},
                               {"h.0.k", {2, 2}, eye.data()},
                               {"h.0.v", {2, 2}, eye.data()},
                               {"h.0.router", {4, 2}, r.data()}};
  std::vector<std::string> names;
  for (int e = 0; e < experts_held; ++e) {
    names.push_back("h.0.e." + std::to_string(e) + ".up");
    names.push_back("h.0.e." + std::to_string(e) + ".down");
  }
  for (int e = 0; e < experts_held; ++e) {
    t.push_back({names[size_t(2 * e)], {2, 2}, ups[size_t(e)].data()});
    t.push_back({names[size_t(2 * e + 1)], {2, 2}, eye.data()});
  }
  write_safetensors(dir / "model.safetensors", t, {});
  std::ofstream(dir / "config.json") << config;
  std::ofstream(dir / "map.json") << R"({"arch": "decoder", "norm_first": true, "roles": {
      "decoder.self.q.weight": "h.{layer}.q", "decoder.self.k.weight": "h.{layer}.k",
      "decoder.self.v.weight": "h.{layer}.v", "decoder.ffn.router.weight": "h.{layer}.router",
      "decoder.ffn.experts.up.weight": ")"
                                  << expert_pattern << R"(",
      "decoder.ffn.experts.down.weight": "h.{layer}.e.{expert}.down"}})";
}

Model load(const TempDir& dir) {
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  return load_model(dir.path(), o);
}

}  // namespace

TEST_CASE("experts: a layout file's router and {expert} patterns bind the experts from the file") {
  TempDir dir;
  write_moe(dir, 4,
            R"({"num_attention_heads": 1, "num_local_experts": 4, "num_experts_per_tok": 2})");
  const Model m = load(dir);
  CHECK(m.config.experts.n_experts == 4);
  CHECK(m.config.experts.top_k == 2);
  CHECK(m.config.experts.normalise_top_k);
  CHECK(m.config.d_ff == 2);
  std::optional<LayerWeights> held;
  const LayerWeights& w = m.weights.decoder.layer(0, held);
  REQUIRE(w.experts);
  CHECK(!w.ffn);
  CLOSE(w.experts->router.weight.matrix(), router(), 0.0f);
  CLOSE(w.experts->expert(2).up.weight.matrix(), Matrix(Matrix::Identity(2, 2) * 3.0f), 0.0f);
  CHECK(contains(describe_config(m.config), "4 experts, top 2 renormalised, each relu"));

  // Qwen3-MoE's norm_topk_prob (false) turns the renormalisation off.
  write_moe(dir, 4,
            R"({"num_attention_heads": 1, "num_experts": 4, "num_experts_per_tok": 2,
                "norm_topk_prob": false})");
  CHECK(!load(dir).config.experts.normalise_top_k);
}

TEST_CASE("experts: a router, experts or config.json that disagree are errors naming why") {
  TempDir dir;
  const auto error = [&](int held, const std::string& config,
                         const std::string& pattern = "h.{layer}.e.{expert}.up") {
    write_moe(dir, held, config, pattern);
    return error_of([&] { (void)load(dir); });
  };
  const std::string two = R"({"num_attention_heads": 1, "num_experts_per_tok": 2})";
  const auto missing = error(3, two);
  CHECK_MESSAGE(contains(missing,
                         "tensor 'h.0.router' of shape [4, 2] scores 4 experts, but the "
                         "file holds 3: "),
                missing);
  CHECK_MESSAGE(contains(missing, "missing tensor 'h.0.e.3.up'"), missing);
  const auto extra = error(5, two);
  CHECK_MESSAGE(contains(extra, "scores 4 experts, but the file holds more: tensor 'h.0.e.4.up'"),
                extra);
  const auto no_top_k = error(4, R"({"num_attention_heads": 1})");
  CHECK_MESSAGE(contains(no_top_k,
                         "a mixture of 4 experts, but no num_experts_per_tok says how "
                         "many run per token"),
                no_top_k);
  const auto too_many = error(4, R"({"num_attention_heads": 1, "num_experts_per_tok": 5})");
  CHECK_MESSAGE(contains(too_many, "num_experts_per_tok = 5: more experts per token than the 4"),
                too_many);
  const auto declared =
      error(4, R"({"num_attention_heads": 1, "num_experts_per_tok": 2, "num_local_experts": 8})");
  CHECK_MESSAGE(contains(declared, "num_local_experts = 8, but the weights have 4"), declared);
  // An expert gate under a plain FFN would be skipped; a dense FFN beside the router left out.
  {
    write_moe(dir, 4, two);
    std::vector<float> eye = {1, 0, 0, 1};
    const SafetensorsFile f = SafetensorsFile::open(dir / "model.safetensors");
    std::vector<std::pair<std::string, Tensor>> kept;
    for (const auto& t : f.tensors()) kept.emplace_back(t.name, f.load(t.name));
    for (const char* extra : {"h.0.e.0.gate", "h.0.dense.up"}) {
      std::vector<TensorView> views;
      for (const auto& [name, t] : kept) views.push_back({name, t.shape, t.data.data()});
      views.push_back({extra, {2, 2}, eye.data()});
      write_safetensors(dir / "model.safetensors", views, {});
      std::string map = R"({"arch": "decoder", "norm_first": true, "roles": {
          "decoder.self.q.weight": "h.{layer}.q", "decoder.self.k.weight": "h.{layer}.k",
          "decoder.self.v.weight": "h.{layer}.v", "decoder.ffn.router.weight": "h.{layer}.router",
          "decoder.ffn.experts.up.weight": "h.{layer}.e.{expert}.up",
          "decoder.ffn.experts.down.weight": "h.{layer}.e.{expert}.down",
          "decoder.ffn.experts.gate.weight": "h.{layer}.e.{expert}.gate",
          "decoder.ffn.up.weight": "h.{layer}.dense.up"}})";
      std::ofstream(dir / "map.json") << map;
      const auto e = error_of([&] { (void)load(dir); });
      CHECK_MESSAGE(
          contains(e, std::string(extra) == "h.0.e.0.gate"
                          ? "tensor 'h.0.e.0.gate' is a feed-forward gate, but layout map "
                            "has a plain FFN"
                          : "is a dense FFN beside the mixture of experts routed by"),
          e);
    }
  }
  const auto one_name = error(4, two, "h.{layer}.e.0.up");
  CHECK_MESSAGE(contains(one_name, "names one tensor for every expert; put \"{expert}\""),
                one_name);
}
