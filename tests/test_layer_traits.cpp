// The layer traits the next families need, each against a hand calculation: attention and FFN in
// parallel (GPT-NeoX, GPT-J), norms on a sublayer's output only (OLMo 2), q/k RMSNorm over the
// whole projection (OLMo 2) beside per head (Qwen3), and a fused q/k/v grouped per head
// (GPT-NeoX's query_key_value); and the errors when a file or layout cannot have them.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/compute/head_inputs.hpp"
#include "attnviz/compute/transformer_layer.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/layout.hpp"
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

// The hand-sized layer: d_model 2, one head, W_q = 0 (every score 0, so each row attends
// uniformly to both tokens: the output is the mean of the values), W_k = W_v = W_O = I, and a plain
// ReLU FFN with up = down = I (FFN(h) = relu(h)). RMSNorm with eps 1e-6.
const float k_r2 = std::sqrt(2.0f);

Linear identity() {
  return Linear{Matrix::Identity(2, 2), {}};
}

LayerWeights hand_layer() {
  LayerWeights w;
  w.self_attn.q = Linear{Matrix::Zero(2, 2), {}};
  w.self_attn.k = identity();
  w.self_attn.v = identity();
  w.self_attn.out = identity();
  w.ffn = FeedForwardWeights{identity(), identity(), std::nullopt};
  return w;
}

LayerNormWeights gain(float g) {
  return {RowVector::Constant(2, g), {}};
}

Config hand_config() {
  Config c;
  c.arch = Arch::decoder;
  c.d_model = c.d_qk = c.d_v = c.kdim = c.vdim = c.d_ff = 2;
  c.n_heads = c.n_kv_heads = 1;
  c.norm = NormKind::rms_norm;
  c.layer_norm_eps = 1e-6f;
  c.norm_first = true;
  c.activation = Activation::relu;
  return c;
}

Matrix input() {
  Matrix x(2, 2);
  x << 1, 0, 0, 2;
  return x;
}

// What each residual step reported.
struct Steps : AttentionSink {
  struct Step {
    std::string kind, placement;
    Matrix x, f_input, update, out;
  };
  std::vector<Step> steps;
  void on_block(const AttentionBlock&) override {}
  void sublayer(const SublayerStep& s, ConstMatrixRef x, ConstMatrixRef f_input,
                ConstMatrixRef update, ConstMatrixRef out) override {
    steps.push_back({s.kind, s.placement, x, f_input, update, out});
  }
};

Matrix run_layer(const LayerWeights& w, const Config& c, Steps* steps = nullptr) {
  AttentionSetup self;
  self.sink = steps;
  return transformer_layer(input(), w, c, 0, self, nullptr, nullptr);
}

Matrix rows(std::initializer_list<float> values) {
  Matrix m(2, 2);
  auto it = values.begin();
  for (int i = 0; i < 4; ++i) m(i / 2, i % 2) = *it++;
  return m;
}

}  // namespace

TEST_CASE("layer traits: attention and FFN in parallel read the same input (GPT-J, GPT-NeoX)") {
  // RMSNorm(x) = √2 · x's one-hot rows: h = [[√2, 0], [0, √2]]; attention's output is the mean of
  // h's rows, [√2/2, √2/2] on both rows; relu(h) = h.
  Config c = hand_config();
  c.parallel_residual = true;
  LayerWeights gptj = hand_layer();
  gptj.norm_self = gain(1);  // one norm, read by both (GPT-J, Phi-2)
  const float a = k_r2 / 2;
  Steps steps;
  const Matrix one_norm = run_layer(gptj, c, &steps);
  CLOSE(one_norm, rows({1 + a + k_r2, a, a, 2 + a + k_r2}), 1e-5f);

  // GPT-NeoX's second norm (post_attention_layernorm) with gain 2 feeds the FFN: relu(2h).
  LayerWeights neox = gptj;
  neox.norm_ffn = gain(2);
  CLOSE(run_layer(neox, c), rows({1 + a + 2 * k_r2, a, a, 2 + a + 2 * k_r2}), 1e-5f);

  // Sequential, the FFN reads x1 = x + attention = [[1 + a, a], [a, 2 + a]] and adds relu(2 ·
  // RMSNorm(x1)): row 0's rms is sqrt(((1 + a)² + a²) / 2) = 1.306563, so 1.707107 + 2 · 1.707107 /
  // 1.306563 = 4.320231, …
  c.parallel_residual = false;
  CLOSE(run_layer(neox, c), rows({4.320231f, 1.789499f, 1.421919f, 5.443718f}), 1e-5f);

  // What `residual` and `explain` are told: both steps read x, each adds its own update, and both
  // end at the layer's output.
  REQUIRE(steps.steps.size() == 2);
  CHECK(steps.steps[0].kind == "attention");
  CHECK(steps.steps[1].kind == "feed-forward");
  for (const auto& s : steps.steps) {
    CHECK(s.placement == "parallel");
    CLOSE(s.x, input(), 0.0f);
    CLOSE(s.f_input, rows({k_r2, 0, 0, k_r2}), 1e-5f);
    CLOSE(s.out, one_norm, 0.0f);
  }
  CLOSE(steps.steps[0].update, rows({a, a, a, a}), 1e-5f);
  CLOSE(steps.steps[1].update, rows({k_r2, 0, 0, k_r2}), 1e-5f);
}

TEST_CASE("layer traits: norms on the sublayers' outputs only, none before them (OLMo 2)") {
  // x1 = x + RMSNorm(attention(x)): attention(x) = mean of x's rows = [0.5, 1], whose rms is
  // sqrt(0.625), so RMSNorm = [0.632456, 1.264911]; x2 = x1 + RMSNorm(relu(x1)) row by row.
  LayerWeights w = hand_layer();
  w.norm_self_post = gain(1);
  w.norm_ffn_post = gain(1);
  Steps steps;
  const Matrix out = run_layer(w, hand_config(), &steps);
  CLOSE(out, rows({2.750351f, 2.131113f, 0.901407f, 4.653314f}), 1e-5f);
  REQUIRE(steps.steps.size() == 2);
  CHECK(steps.steps[0].placement == std::string("output norm"));
  CLOSE(steps.steps[0].f_input, input(), 0.0f);  // attention read x itself
  CLOSE(steps.steps[0].update, rows({0.632456f, 1.264911f, 0.632456f, 1.264911f}), 1e-5f);
}

TEST_CASE("layer traits: q/k RMSNorm per head (Qwen3) or over the whole projection (OLMo 2)") {
  // x = [1, 2, 3, 4] projected by I into two heads of 2: per head, [1, 2] / sqrt(2.5) and
  // [3, 4] / sqrt(12.5); whole, [1, 2, 3, 4] / sqrt(7.5), times the gains [1, 1, 1, 2].
  Matrix x(1, 4);
  x << 1, 2, 3, 4;
  AttentionWeights w;
  w.q = w.k = w.v = Linear{Matrix::Identity(4, 4), {}};
  QueryKeyTransform t;
  t.norm_eps = 0;
  w.q_norm = w.k_norm = RowVector::Ones(2);
  const HeadInputs per_head = project_heads(x, x, w, 2, t);
  Matrix expected(1, 4);
  expected << 1 / std::sqrt(2.5f), 2 / std::sqrt(2.5f), 3 / std::sqrt(12.5f), 4 / std::sqrt(12.5f);
  CLOSE(per_head.q, expected, 1e-6f);
  CLOSE(per_head.k, expected, 1e-6f);

  t.norm_scope = QkNorm::whole;
  w.q_norm = RowVector(4);
  w.q_norm << 1, 1, 1, 2;
  w.k_norm = RowVector::Ones(4);
  const HeadInputs whole = project_heads(x, x, w, 2, t);
  const float r = std::sqrt(7.5f);
  expected << 1 / r, 2 / r, 3 / r, 8 / r;
  CLOSE(whole.q, expected, 1e-6f);
  expected(0, 3) = 4 / r;
  CLOSE(whole.k, expected, 1e-6f);
  CHECK(whole.v == x);  // v is never normalised

  w.q_norm = RowVector::Ones(2);  // a per-head gain where the whole projection is normalised
  CHECK(contains(error_of([&] { (void)project_heads(x, x, w, 2, t); }),
                 "q/k norm: a gain of 2 for 4 columns normalised whole"));
}

namespace {

// A one-layer decoder of two heads of width 1 on a 2-wide stream, its q/k/v fused in one [6, 2]
// weight whose row i is [i, 10 + i] and bias [0, 1, …, 5]; `extra` (the fields before "roles",
// each followed by ", ") goes into the layout file.
std::filesystem::path fused_model(const TempDir& dir, const std::string& extra) {
  std::vector<float> qkv, bias, out = {1, 0, 0, 1};
  for (int i = 0; i < 6; ++i) {
    qkv.insert(qkv.end(), {float(i), float(10 + i)});
    bias.push_back(float(i));
  }
  write_safetensors(dir / "m.safetensors",
                    {{"h.0.qkv.w", {6, 2}, qkv.data()},
                     {"h.0.qkv.b", {6}, bias.data()},
                     {"h.0.o.w", {2, 2}, out.data()}},
                    {});
  std::ofstream(dir / "map.json") << R"({"arch": "decoder", )" << extra
                                  << R"("roles": {"decoder.self.qkv.weight": "h.{layer}.qkv.w",
      "decoder.self.qkv.bias": "h.{layer}.qkv.b", "decoder.self.out.weight": "h.{layer}.o.w"}})";
  return dir / "m.safetensors";
}

ConfigOverrides layout_file(const TempDir& dir, int heads = 2) {
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  o.n_heads = heads;
  return o;
}

}  // namespace

TEST_CASE("layer traits: a fused q/k/v grouped per head, [heads, 3, d_k] (GPT-NeoX)") {
  TempDir dir;
  const Model m = load_model(
      fused_model(dir, R"("norm_first": true, "fused_qkv_per_head": true, )"), layout_file(dir));
  std::optional<LayerWeights> held;
  const AttentionWeights& a = m.weights.decoder.layer(0, held).self_attn;
  // Head h's q, k, v are rows 3h, 3h + 1, 3h + 2.
  const auto row_pair = [](int i, int j) {
    return rows({float(i), float(10 + i), float(j), float(10 + j)});
  };
  CLOSE(a.q.weight.matrix(), row_pair(0, 3), 0.0f);
  CLOSE(a.k.weight.matrix(), row_pair(1, 4), 0.0f);
  CLOSE(a.v.weight.matrix(), row_pair(2, 5), 0.0f);
  CHECK(a.q.bias == RowVector::LinSpaced(2, 0, 3));
  CHECK(a.k.bias == RowVector::LinSpaced(2, 1, 4));
  CHECK(a.v.bias == RowVector::LinSpaced(2, 2, 5));

  // Without the trait the rows are [q; k; v]: q is rows 0 and 1.
  TempDir plain;
  const Model p = load_model(fused_model(plain, R"("norm_first": true, )"), layout_file(plain));
  std::optional<LayerWeights> held_p;
  CLOSE(p.weights.decoder.layer(0, held_p).self_attn.q.weight.matrix(), row_pair(0, 1), 0.0f);
}

TEST_CASE("layer traits: a layout or file that cannot have them is an error naming why") {
  TempDir dir;
  // Grouped per head, q, k and v come in threes: 4 query heads of width 1 over 1 key/value head
  // (6 rows: 4 + 1 + 1) have no such layout.
  TempDir gqa_dir;
  const auto gqa = error_of([&] {
    std::vector<float> qkv(6 * 2, 0.5f);
    write_safetensors(gqa_dir / "model.safetensors", {{"h.0.qkv.w", {6, 2}, qkv.data()}}, {});
    std::ofstream(gqa_dir / "config.json")
        << R"({"num_key_value_heads": 1, "head_dim": 1, "num_attention_heads": 4})";
    std::ofstream(gqa_dir / "map.json") << R"({"arch": "decoder", "norm_first": true,
        "fused_qkv_per_head": true, "roles": {"decoder.self.qkv.weight": "h.{layer}.qkv.w"}})";
    ConfigOverrides o;
    o.layout_file = (gqa_dir / "map.json").string();
    (void)load_model(gqa_dir.path(), o);
  });
  CHECK_MESSAGE(contains(gqa,
                         "groups the fused q/k/v rows per head ([heads, 3, d_k]), which needs "
                         "as many key/value heads as query heads"),
                gqa);
  CHECK_MESSAGE(contains(gqa, "4 query and 1 key/value heads"), gqa);

  // Parallel attention + FFN is a pre-norm block.
  const auto post = error_of([&] {
    (void)load_model(fused_model(dir, R"("norm_first": false, "parallel_residual": true, )"),
                     layout_file(dir));
  });
  CHECK_MESSAGE(contains(post,
                         "parallel attention and FFN (parallel_residual) need pre-norm "
                         "transformer layers without cross-attention; this one is post-norm"),
                post);

  // A field the layout file does not know is refused, not skipped; so is qk_norm "none".
  const auto typo = error_of([&] {
    (void)load_model(fused_model(dir, R"("norm_first": true, "paralel_residual": true, )"),
                     layout_file(dir));
  });
  CHECK_MESSAGE(contains(typo, "map.json: \"paralel_residual\" is not a layout field"), typo);
  const auto none = error_of([&] {
    (void)load_model(fused_model(dir, R"("norm_first": true, "qk_norm": "none", )"),
                     layout_file(dir));
  });
  CHECK_MESSAGE(contains(none, "map.json: \"qk_norm\" must be per_head or whole"), none);
}

TEST_CASE("layer traits: whole-projection q/k norm gains are [Q] and [K], checked at load") {
  TempDir dir;
  std::vector<float> w(4, 0.25f), q_norm(2, 1.0f), k_norm(2, 1.0f), per_head(1, 1.0f);
  const auto write = [&](const std::vector<float>& gain) {
    write_safetensors(dir / "m.safetensors",
                      {{"q", {2, 2}, w.data()},
                       {"k", {2, 2}, w.data()},
                       {"v", {2, 2}, w.data()},
                       {"qn", {int64_t(gain.size())}, gain.data()},
                       {"kn", {2}, k_norm.data()}},
                      {});
    std::ofstream(dir / "map.json") << R"({"arch": "decoder", "norm_first": true,
        "qk_norm": "whole", "roles": {"decoder.self.q.weight": "q", "decoder.self.k.weight": "k",
        "decoder.self.v.weight": "v", "decoder.self.q_norm.weight": "qn",
        "decoder.self.k_norm.weight": "kn"}})";
  };
  write(q_norm);
  CHECK(load_model(dir / "m.safetensors", layout_file(dir)).config.qk_norm == QkNorm::whole);
  write(per_head);  // [d_k] = [1], as a per-head gain of two 1-wide heads would be
  const auto wrong = error_of([&] { (void)load_model(dir / "m.safetensors", layout_file(dir)); });
  CHECK_MESSAGE(contains(wrong, "tensor 'qn' has shape [1], expected [2]"), wrong);
}

TEST_CASE("layer traits: a family's config.json switches parallel blocks only by its own key") {
  // transformers' MistralConfig keeps an unknown "parallel_residual" and ignores it: so does
  // attnviz, where only a layout file (or a family whose config class reads a key) switches it.
  TempDir dir;
  const std::filesystem::path fixture = "tests/fixtures/torch/hf_mistral";
  std::filesystem::copy_file(fixture / "model.safetensors", dir / "model.safetensors");
  nlohmann::json config = nlohmann::json::parse(std::ifstream(fixture / "config.json"));
  config["parallel_residual"] = true;
  std::ofstream(dir / "config.json") << config.dump();
  const Model m = load_model(dir.path(), {});
  CHECK(m.config.layout == "mistral");
  CHECK_FALSE(m.config.parallel_residual);
  // Only GPT-NeoX's config class reads one: use_parallel_residual.
  for (const auto& layout : builtin_layouts()) {
    CAPTURE(layout.name);
    if (layout.name == "gpt_neox")
      CHECK(layout.parallel_residual_keys == std::vector<std::string>{"use_parallel_residual"});
    else
      CHECK(layout.parallel_residual_keys.empty());
  }
}
