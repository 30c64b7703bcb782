// The transformer stack's parts against hand calculations, and layouts detected from files.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/layer_norm.hpp"
#include "attnviz/compute/positional.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/random.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/init.hpp"
#include "check_close.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::check_close;
using attnviz::test::TempDir;

TEST_CASE("stack: LayerNorm of [1, 2, 3, 4] by hand") {
  // mean 2.5, biased variance 1.25: y = (x − 2.5) / sqrt(1.25 + eps) · γ + β
  Matrix x(1, 4);
  x << 1, 2, 3, 4;
  RowVector gamma(4), beta(4);
  gamma << 1, 1, 2, 2;
  beta << 0, 0, 0, 1;
  const Matrix y = layer_norm(x, LayerNormWeights{gamma, beta}, 0.0f);
  const float s = 1.0f / std::sqrt(1.25f);
  Matrix expected(1, 4);
  expected << -1.5f * s, -0.5f * s, 2 * 0.5f * s, 2 * 1.5f * s + 1;
  check_close(y, expected, 1e-6f, "layer_norm");
  // BERT's eps 1e-12 must not vanish: a constant row normalises to 0, not NaN.
  const Matrix flat = layer_norm(Matrix::Constant(1, 4, 3.0f), LayerNormWeights{gamma, {}}, 1e-12f);
  CHECK(flat.isZero(0.0f));
}

TEST_CASE("stack: ReLU, GELU(erf) and GELU(tanh) at known points") {
  Matrix x(1, 3);
  x << -1.0f, 0.0f, 1.0f;
  Matrix r = x, g = x, t = x;
  activate(r, Activation::relu);
  activate(g, Activation::gelu);
  activate(t, Activation::gelu_tanh);
  CHECK(r(0, 0) == 0.0f);
  CHECK(r(0, 2) == 1.0f);
  // GELU(1) = Φ(1) = 0.8413447460685429; GELU(−1) = −(1 − Φ(1)) = −0.15865525393145707
  CHECK(g(0, 2) == doctest::Approx(0.8413447460685429).epsilon(1e-6));
  CHECK(g(0, 0) == doctest::Approx(-0.15865525393145707).epsilon(1e-5));
  // tanh form at 1: 0.5 (1 + tanh(√(2/π) · 1.044715)) = 0.8411919906082768
  CHECK(t(0, 2) == doctest::Approx(0.8411919906082768).epsilon(1e-6));
  CHECK(t(0, 1) == 0.0f);
}

TEST_CASE(
    "stack: sinusoidal encoding: PE(0) = [0, 1, 0, 1, …], PE(1, 0) = sin 1, base changes the "
    "rate") {
  const Matrix pe = sinusoidal_encoding(3, 4, 10000.0f);
  CHECK(pe(0, 0) == 0.0f);
  CHECK(pe(0, 1) == 1.0f);
  CHECK(pe(1, 0) == doctest::Approx(std::sin(1.0)));
  CHECK(pe(1, 1) == doctest::Approx(std::cos(1.0)));
  // dimension pair i = 1 of d = 4: angle = pos / base^(2/4) = pos / 100
  CHECK(pe(2, 2) == doctest::Approx(std::sin(0.02)));
  // Some tutorials use log(1000.0) where the paper has 10000.
  const Matrix pe1000 = sinusoidal_encoding(3, 4, 1000.0f);
  CHECK(pe1000(2, 2) == doctest::Approx(std::sin(2.0 / std::sqrt(1000.0))));
}

TEST_CASE("stack: without positions an encoder is permutation-equivariant, positions break it") {
  TempDir dir;
  InitOptions o;
  o.arch = "encoder";  // nn.TransformerEncoder with sinusoidal positions added to token embeddings
  o.d_model = 16;
  o.n_heads = 2;
  o.seed = 9;
  init_model(dir.path(), o);
  const Model m = load_model(dir.path(), {});
  const std::vector<std::string> tokens{"a", "b", "c", "d", "e"}, shuffled{"c", "a", "e", "b", "d"};
  const std::vector<int> perm{2, 0, 4, 1, 3};  // shuffled[i] = tokens[perm[i]]
  auto run = [&](const Sequence& s) {
    return forward(m, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
  };
  auto permuted = [&](const Matrix& fx) {
    Matrix out(fx.rows(), fx.cols());
    for (int i = 0; i < 5; ++i) out.row(i) = fx.row(perm[i]);
    return out;
  };
  // --embeddings feed the layers as they are: no positions, so f(s(x)) = s(f(x)).
  Matrix x(5, 16), xs(5, 16);
  for (int i = 0; i < 5; ++i) x.row(i) = hash_embedding(tokens[i], 16);
  for (int i = 0; i < 5; ++i) xs.row(i) = hash_embedding(shuffled[i], 16);
  const Matrix fx = run(embedded_input(m, x, tokens, "x", 16));
  check_close(run(embedded_input(m, xs, shuffled, "xs", 16)), permuted(fx), 1e-5f,
              "f(s(x)) vs s(f(x))");
  // Tokens get sinusoidal positions added: the same shuffle now changes what each token sees.
  const Matrix gx = run(embed_tokens(m, vocabulary_of(m), tokens)),
               gsx = run(embed_tokens(m, vocabulary_of(m), shuffled));
  CHECK((gsx - permuted(gx)).cwiseAbs().maxCoeff() > 1e-2f);
}

TEST_CASE("stack: init writes each family's names and load detects its layout") {
  const std::pair<const char*, const char*> cases[] = {
      {"mha", "qkv-linears"}, {"encoder", "torch-encoder"},
      {"decoder", "nanogpt"}, {"encoder-decoder", "torch-transformer"},
      {"gpt2", "gpt2"},       {"bert", "bert"}};
  for (const auto& [arch, layout] : cases) {
    CAPTURE(arch);
    TempDir dir;
    InitOptions o;
    o.arch = arch;
    o.d_model = 16;
    o.n_heads = 4;
    o.n_layers = 3;
    if (std::string(arch) == "gpt2" || std::string(arch) == "bert")
      o.vocab = {"a", "b"};  // a table needs its rows
    init_model(dir.path(), o);
    const Model m = load_model(dir.path(), {});
    CHECK(m.config.layout == layout);
    CHECK(m.config.n_heads == 4);
    if (std::string(arch) != "mha") CHECK(m.config.d_ff == 64);
    const int layers = std::max(m.config.n_encoder_layers, m.config.n_decoder_layers);
    CHECK(layers == (std::string(arch) == "mha" ? 1 : 3));
  }
}

TEST_CASE("stack: a user layout file maps unanticipated names") {
  TempDir dir;
  Random rng(1);
  std::vector<float> w(8 * 8), b(8);
  for (float& x : w) x = rng.normal();
  write_safetensors(dir / "m.safetensors",
                    {{"blk.0.wq", {8, 8}, w.data()},
                     {"blk.0.wk", {8, 8}, w.data()},
                     {"blk.0.wv", {8, 8}, w.data()},
                     {"blk.0.wo", {8, 8}, w.data()},
                     {"blk.0.ln.g", {8}, b.data()}},
                    {});
  std::ofstream(dir / "map.json") << R"({"arch": "mha", "roles": {
      "encoder.self.q.weight": "blk.{layer}.wq", "encoder.self.k.weight": "blk.{layer}.wk",
      "encoder.self.v.weight": "blk.{layer}.wv", "encoder.self.out.weight": {"pattern": "blk.{layer}.wo", "transpose": true}}})";
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  o.n_heads = 2;
  const Model m = load_model(dir / "m.safetensors", o);
  CHECK(m.config.layout == "map");
  std::optional<LayerWeights> held;
  const AttentionWeights& a = m.weights.encoder.layer(0, held).self_attn;
  REQUIRE(a.out);
  CHECK(a.out->weight(0, 1) == w[1 * 8 + 0]);  // transposed
}

TEST_CASE("stack: unknown names, a wrong layout and a missing layer tensor are clear errors") {
  TempDir dir;
  const std::vector<float> z(64, 0.0f);
  write_safetensors(dir / "odd.safetensors", {{"foo.bar", {2, 2}, z.data()}}, {});
  CHECK_THROWS_WITH_AS(load_model(dir / "odd.safetensors", {}),
                       doctest::Contains("no known layout fits these tensor names (foo.bar)"),
                       Error);
  ConfigOverrides bad;
  bad.layout = "gpt3";
  CHECK_THROWS_WITH_AS(load_model(dir / "odd.safetensors", bad),
                       doctest::Contains("--layout gpt3: unknown layout"), Error);

  TempDir enc;
  InitOptions o;
  o.arch = "encoder";
  o.d_model = 8;
  o.n_heads = 2;
  init_model(enc.path(), o);
  const auto src = SafetensorsFile::open(enc / "model.safetensors");
  std::vector<Tensor> kept;
  std::vector<TensorView> views;
  for (const auto& t : src.tensors()) {
    if (t.name != "layers.1.linear2.weight") kept.push_back(src.load(t.name));
  }
  size_t k = 0;
  for (const auto& t : src.tensors()) {
    if (t.name != "layers.1.linear2.weight")
      views.push_back({t.name, kept[k].shape, kept[k].data.data()}), ++k;
  }
  write_safetensors(enc / "model.safetensors", views, src.metadata());
  CHECK_THROWS_WITH_AS(
      load_model(enc.path(), {}),
      doctest::Contains("missing tensor 'layers.1.linear2.weight' (encoder.ffn.down.weight of "
                        "layout torch-encoder), expected shape [8, 32]"),
      Error);
}

TEST_CASE("stack: a layout file with an unknown role names it") {
  TempDir dir;
  const std::vector<float> z(4, 0.0f);
  write_safetensors(dir / "m.safetensors", {{"w", {2, 2}, z.data()}}, {});
  std::ofstream(dir / "map.json") << R"({"roles": {"encoder.self.query.weight": "w"}})";
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  CHECK_THROWS_WITH_AS(load_model(dir / "m.safetensors", o),
                       doctest::Contains("\"encoder.self.query.weight\" is not a role"), Error);
}

namespace {
// Records the id of every map forward announces, and checks each map's blocks cover its rows.
struct MapRecorder : AttentionSink {
  std::vector<HeadId> ids;
  int next_row = 0;
  void begin_map(const MapInfo& info) override {
    ids.push_back(info.id);
    next_row = 0;
  }
  void on_block(const AttentionBlock& b) override {
    CHECK(b.row_begin == next_row);
    next_row = b.row_end;
  }
  void end_map(const MapInfo& info) override { CHECK(next_row == info.n_query); }
};
}  // namespace

TEST_CASE("stack: attention_maps lists exactly the maps forward emits, for every architecture") {
  for (const std::string arch : {"mha", "encoder", "decoder", "encoder-decoder", "gpt2", "bert"}) {
    CAPTURE(arch);
    TempDir dir;
    InitOptions o;
    o.arch = arch;
    o.d_model = 8;
    o.n_heads = 2;
    o.n_layers = 2;
    o.seed = 3;
    const std::vector<std::string> tokens{"a", "b", "c"};
    if (arch == "gpt2" || arch == "bert") o.vocab = tokens;  // their families have a table
    init_model(dir.path(), o);
    const Model m = load_model(dir.path(), {});
    const bool source = arch == "encoder-decoder";
    ForwardInputs in;
    in.target = embed_tokens(m, vocabulary_of(m), tokens);
    if (source) in.source = embed_tokens(m, vocabulary_of(m), {"a", "b"});
    MapRecorder rec;
    forward(m, in, {}, &rec);
    std::vector<HeadId> expected;  // attention_maps gives head 0 of each (stack, layer, site)
    for (const HeadId& id : attention_maps(m, source)) {
      for (int h = 0; h < 2; ++h) expected.push_back(HeadId{id.stack, id.layer, id.site, h});
    }
    REQUIRE(rec.ids.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) CHECK(rec.ids[i].title() == expected[i].title());
    // Each map a model of that shape must have: 1, 2, 2, 2 + 2·2, 2, 2 (stack, layer, site)
    // entries.
    const size_t sites = arch == "mha" ? 1 : source ? 6 : 2;
    CHECK(expected.size() == 2 * sites);
  }
}

TEST_CASE(
    "stack: a source the model cannot take, or a missing one, is refused before anything runs") {
  TempDir enc, ed;
  InitOptions o;
  o.d_model = 8;
  o.n_heads = 2;
  o.arch = "encoder";
  init_model(enc.path(), o);
  o.arch = "encoder-decoder";
  init_model(ed.path(), o);
  const Model encoder = load_model(enc.path(), {}), both = load_model(ed.path(), {});
  CHECK_THROWS_WITH_AS(attention_maps(encoder, true),
                       doctest::Contains("is an encoder: it has no cross-attention"), const Error&);
  CHECK_THROWS_WITH_AS(attention_maps(both, false),
                       doctest::Contains("attends to a source: give --source-tokens"),
                       const Error&);
  CHECK(attention_maps(encoder, false).size() == 2);
}
