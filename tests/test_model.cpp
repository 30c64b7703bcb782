// init → load round trips, hyperparameter sources and their contradictions, embeddings.
#include <doctest/doctest.h>

#include <fstream>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/compute/embedding.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/init.hpp"
#include "attnviz/model/model.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::TempDir;

namespace {
ConfigOverrides heads(int n) {
  ConfigOverrides o;
  o.n_heads = n;
  return o;
}

std::string error_of(const std::function<void()>& f, int* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.exit_code();
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("model: init writes q/k/v/out Linear shapes with d_qk != d_v and load reads them back") {
  TempDir dir;
  InitOptions o;
  o.d_model = 128;
  o.n_heads = 4;
  o.d_qk = 64;
  o.d_v = 32;
  o.seed = 42;
  init_model(dir.path(), o);
  const auto file = SafetensorsFile::open(dir / "model.safetensors");
  CHECK(file.find("q.weight")->shape == std::vector<int64_t>{64, 128});
  CHECK(file.find("v.bias")->shape == std::vector<int64_t>{32});
  CHECK(file.find("out.weight")->shape == std::vector<int64_t>{128, 32});
  CHECK(file.metadata().at("n_heads") == "4");
  // nn.Linear's init: |w| <= 1/sqrt(in_features)
  const Tensor w = file.load("q.weight");
  for (float x : w.data) REQUIRE(std::abs(x) <= 1.0f / std::sqrt(128.0f));

  const Model m = load_model(dir.path(), {});
  CHECK(m.config.d_model == 128);
  CHECK(m.config.n_heads == 4);
  CHECK(m.config.d_k() == 16);
  CHECK(m.config.d_head_v() == 8);
  std::optional<LayerWeights> held;
  const AttentionWeights& a = m.weights.encoder.layer(0, held).self_attn;
  CHECK(a.out.has_value());
  CHECK(a.q.weight(3, 5) == w.data[3 * 128 + 5]);
}

TEST_CASE("model: the same seed gives the same model, another seed another") {
  TempDir a, b, c;
  InitOptions o;
  o.d_model = 16;
  o.n_heads = 2;
  init_model(a.path(), o);
  init_model(b.path(), o);
  o.seed = 1;
  init_model(c.path(), o);
  const Model ma = load_model(a.path(), {}), mb = load_model(b.path(), {}),
              mc = load_model(c.path(), {});
  std::optional<LayerWeights> la, lb, lc;
  const Matrix ka = ma.weights.encoder.layer(0, la).self_attn.k.weight.matrix();
  CHECK(ka == mb.weights.encoder.layer(0, lb).self_attn.k.weight.matrix());
  CHECK(ka != mc.weights.encoder.layer(0, lc).self_attn.k.weight.matrix());
}

TEST_CASE("model: --heads that contradicts the file is a usage error, missing heads asks for it") {
  TempDir dir;
  InitOptions o;
  o.d_model = 16;
  o.n_heads = 2;
  init_model(dir.path(), o);
  int code = 0;
  const auto msg = error_of([&] { load_model(dir.path(), heads(4)); }, &code);
  CHECK(msg.find("n_heads = 4 in the command line contradicts n_heads = 2") != std::string::npos);
  CHECK(code == k_exit_usage);
  CHECK(load_model(dir.path(), heads(2)).config.n_heads == 2);

  // A bare file with no metadata and no config.json: heads must come from the flag.
  const auto src = SafetensorsFile::open(dir / "model.safetensors");
  std::vector<Tensor> kept;
  std::vector<TensorView> views;
  for (const auto& t : src.tensors()) kept.push_back(src.load(t.name));
  for (size_t i = 0; i < kept.size(); ++i)
    views.push_back({src.tensors()[i].name, kept[i].shape, kept[i].data.data()});
  TempDir bare;
  write_safetensors(bare / "w.safetensors", views, {});
  CHECK(error_of([&] { load_model(bare / "w.safetensors", {}); }).find("give --heads N") !=
        std::string::npos);
  CHECK(load_model(bare / "w.safetensors", heads(8)).config.n_heads == 8);
  CHECK(error_of([&] {
          load_model(bare / "w.safetensors", heads(3));
        }).find("3 heads do not divide") != std::string::npos);
}

TEST_CASE("model: a missing tensor and a wrong shape name the tensor and both shapes") {
  TempDir dir;
  const std::vector<float> zeros(64 * 64, 0.0f);
  write_safetensors(dir / "a.safetensors",
                    {{"q.weight", {8, 16}, zeros.data()}, {"k.weight", {8, 16}, zeros.data()}},
                    {{"n_heads", "2"}});
  CHECK(error_of([&] {
          load_model(dir / "a.safetensors", {});
        }).find("missing tensor 'v.weight'") != std::string::npos);
  write_safetensors(dir / "b.safetensors",
                    {{"q.weight", {8, 16}, zeros.data()},
                     {"k.weight", {8, 16}, zeros.data()},
                     {"v.weight", {8, 16}, zeros.data()},
                     {"out.weight", {16, 7}, zeros.data()}},
                    {{"n_heads", "2"}});
  const auto msg = error_of([&] { load_model(dir / "b.safetensors", {}); });
  CHECK(msg.find("'out.weight' has shape [16, 7], expected [16, 8]") != std::string::npos);
}

TEST_CASE("embedding: hash embedding is deterministic per token and unit-variance") {
  const RowVector a = hash_embedding("cat", 4096), b = hash_embedding("cat", 4096),
                  c = hash_embedding("猫", 4096);
  CHECK(a == b);
  CHECK(a != c);
  const double mean = a.mean();
  const double var = (a.array() - mean).square().mean();
  CHECK(std::abs(mean) < 0.05);
  CHECK(std::abs(var - 1.0) < 0.06);
}

namespace {
// Tokens and ids as `attnviz run` embeds them: looked up in the model's vocabulary, then embedded.
Sequence tokens_in(const Model& m, const std::vector<std::string>& tokens) {
  return embed_tokens(m, vocabulary_of(m), tokens);
}
Sequence ids_in(const Model& m, const std::vector<int64_t>& ids) {
  return embed_ids(m, ids, id_labels(vocabulary_of(m), ids));
}

// A d_model 8, 2-head lone attention module in `dir`, with an embedding table when a vocab is
// given.
void init_tiny(const TempDir& dir, std::vector<std::string> vocab) {
  InitOptions o;
  o.d_model = 8;
  o.n_heads = 2;
  o.vocab = std::move(vocab);
  init_model(dir.path(), o);
}
}  // namespace

TEST_CASE("embedding: a vocabulary maps tokens to table rows, [UNK] catches the rest") {
  TempDir dir;
  init_tiny(dir, {"[UNK]", "the", "cat"});
  const Model m = load_model(dir.path(), {});
  REQUIRE(vocabulary_of(m).tokens.size() == 3);
  const Sequence s = tokens_in(m, {"cat", "the", "dog"});
  CHECK(s.x.row(0) == m.weights.embed.token->row(2));
  CHECK(s.x.row(1) == m.weights.embed.token->row(1));
  CHECK(s.x.row(2) == m.weights.embed.token->row(0));
  // The label shows what the model saw, and a note counts the unknown tokens.
  CHECK(s.labels == std::vector<std::string>{"cat", "the", "[UNK]"});
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("1 of 3 tokens is not in") != std::string::npos);
  CHECK(s.notes[0].find("vocab.txt and is embedded as [UNK] (id 0): dog") != std::string::npos);
  const Sequence ids = ids_in(m, {2, 1});
  CHECK(ids.labels == std::vector<std::string>{"cat", "the"});
  CHECK(error_of([&] { ids_in(m, {3}); }).find("past the embedding table's 3 rows") !=
        std::string::npos);
}

TEST_CASE("init: --vocab on a layout without an embedding table is an error, not ignored") {
  TempDir dir;
  InitOptions o;
  o.arch = "encoder";
  o.d_model = 8;
  o.n_heads = 2;
  o.vocab = {"[UNK]", "the"};
  CHECK(error_of([&] { init_model(dir.path(), o); }).find("holds no embedding table") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "vocab.txt"));
}

TEST_CASE(
    "embedding: a token listed twice in vocab.txt takes its last line, as Hugging Face's "
    "load_vocab") {
  TempDir dir;
  init_tiny(dir, {"[UNK]", "the", "cat"});
  std::ofstream(dir / "vocab.txt") << "[UNK]\nthe\nthe\n";
  const Model m = load_model(dir.path(), {});
  CHECK(tokens_in(m, {"the"}).x.row(0) == m.weights.embed.token->row(2));
}

TEST_CASE(
    "embedding: a model with an embedding table but no vocabulary is never fed hash vectors") {
  TempDir dir;
  init_tiny(dir, {"[UNK]", "the", "cat"});
  std::filesystem::remove(dir / "vocab.txt");
  std::ofstream(dir / "vocab.json") << "{}";
  std::ofstream(dir / "merges.txt") << "#version: 0.2\n";
  std::ofstream(dir / "tokenizer.model") << "";
  const Model m = load_model(dir.path(), {});
  const std::string e = error_of([&] { tokens_in(m, {"the", "cat"}); });
  CHECK(e.find("has a token embedding table (3 rows)") != std::string::npos);
  CHECK(e.find("looked for " + (dir / "vocab.txt").string()) != std::string::npos);
  CHECK(e.find("found vocab.json, merges.txt, tokenizer.model: that tokenizer makes ids from text, "
               "so give --text") != std::string::npos);
  CHECK(e.find("give --text, --ids") != std::string::npos);
  std::filesystem::remove(dir / "vocab.json");
  std::filesystem::remove(dir / "merges.txt");
  const std::string spm = error_of([&] { tokens_in(load_model(dir.path(), {}), {"the"}); });
  CHECK_MESSAGE(
      spm.find("(found tokenizer.model: that tokenizer makes ids from text, so give --text)") !=
          std::string::npos,
      spm);
  CHECK(ids_in(m, {2, 1}).x.row(0) == m.weights.embed.token->row(2));  // ids still work
}

TEST_CASE("embedding: without a table tokens are hash-embedded, and a note says so") {
  TempDir dir;
  init_tiny(dir, {});
  const Model m = load_model(dir.path(), {});
  const Sequence s = tokens_in(m, {"the", "cat"});
  CHECK(s.x.row(1) == hash_embedding("cat", 8));
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("no token embedding table: tokens are embedded as hash vectors") !=
        std::string::npos);
}

TEST_CASE("embedding: too many tokens and a wrong width are errors") {
  TempDir dir;
  InitOptions o;
  o.d_model = 8;
  o.n_heads = 2;
  o.max_positions = 3;
  init_model(dir.path(), o);
  const Model m = load_model(dir.path(), {});
  CHECK(error_of([&] {
          tokens_in(m, {"a", "b", "c", "d"});
        }).find("at most 3") != std::string::npos);
  CHECK(error_of([&] {
          embedded_input(m, Matrix::Zero(2, 7), {}, "x.npy", m.config.d_model);
        }).find("width 7 (shape [2, 7]), but the model's d_model is 8") != std::string::npos);
}
