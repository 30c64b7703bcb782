// run --logits: logits = final hidden · W_unembedᵀ against PyTorch (make_fixtures.py's llama
// cases), the soft-cap and the streamed softmax by hand, and the models that have nothing to
// predict with.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::as_matrix;
using attnviz::test::contains;
using attnviz::test::k_torch;
using attnviz::test::llama_layout;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE("logits: every Llama-like fixture gives PyTorch's logits and torch.topk's ids") {
  // hf_llama / hf_qwen3 through the layout file; the built-in families by model_type (Gemma 2's
  // final_logit_softcapping 30 applied, as Gemma2ForCausalLM does).
  for (const char* name : {"hf_llama", "hf_qwen3", "hf_llama32", "hf_mistral", "hf_qwen2",
                           "hf_qwen3_builtin", "hf_gemma", "hf_gemma2", "hf_gemma3", "hf_phi3"}) {
    CAPTURE(name);
    const bool layout_file = std::string(name) == "hf_llama" || std::string(name) == "hf_qwen3";
    const Model m = load_model(k_torch / name, layout_file ? llama_layout() : ConfigOverrides{});
    const auto ids = parse_ids(test::slurp(k_torch / name / "ids.txt"), "ids.txt");
    const Sequence s = embed_ids(m, ids, std::vector<std::string>(ids.size(), "t"));
    const Matrix hidden = forward(m, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
    const SafetensorsFile expected = SafetensorsFile::open(k_torch / name / "logits.safetensors");
    const Matrix logits = as_matrix(expected.load("logits")),
                 top5 = as_matrix(expected.load("top5"));
    REQUIRE(unembedding(m) != nullptr);
    CHECK((unembedding(m) == &*m.weights.embed.token) == m.config.tied_embeddings);
    const float cap = m.config.final_logit_softcap;
    CHECK((cap == 30.0f) == (std::string(name) == "hf_gemma2"));
    Matrix ours = unembedding(m)->times_transposed(hidden);
    if (cap > 0) ours = ((ours.array() / cap).tanh() * cap).matrix();
    test::check_close(ours, logits, 1e-4f, "hidden · W_unembedᵀ");

    const auto top = top_predictions(*unembedding(m), hidden, 5, cap);
    REQUIRE(top.size() == ids.size());
    for (size_t p = 0; p < top.size(); ++p) {
      CAPTURE(p);
      // softmax of PyTorch's logits, in double, beside attnviz's streamed probabilities
      const Eigen::ArrayXd row = logits.row(Eigen::Index(p)).cast<double>().transpose().array();
      const double z = (row - row.maxCoeff()).exp().sum();
      REQUIRE(top[p].size() == 5);
      for (size_t r = 0; r < 5; ++r) {
        CHECK(top[p][r].id == static_cast<int64_t>(top5(Eigen::Index(p), Eigen::Index(r))));
        CHECK(top[p][r].logit ==
              doctest::Approx(logits(Eigen::Index(p), top[p][r].id)).epsilon(1e-4));
        CHECK(top[p][r].probability ==
              doctest::Approx(std::exp(row[top[p][r].id] - row.maxCoeff()) / z).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("logits: the soft-cap by hand, cap · tanh(logit / cap), and ties ranked by id") {
  Matrix w(3, 2);
  w << 1, 0,  //
      0, 1,   //
      1, 1;
  Matrix hidden(1, 2);
  hidden << 2, 0;  // logits 2, 0, 2
  const auto top = top_predictions(TokenTable(w), hidden, 3, 2.0f);
  REQUIRE(top.at(0).size() == 3);
  // 2 · tanh(1) = 1.5231883; softmax of (1.5231883, 0, 1.5231883) = 0.4508534, 0.0982931, 0.4508534
  CHECK(top[0][0].id == 0);
  CHECK(top[0][1].id == 2);
  CHECK(top[0][2].id == 1);
  CHECK(top[0][0].logit == doctest::Approx(1.5231883).epsilon(1e-6));
  CHECK(top[0][2].logit == 0.0f);
  CHECK(top[0][0].probability == doctest::Approx(0.4508534).epsilon(1e-6));
  CHECK(top[0][1].probability == doctest::Approx(0.4508534).epsilon(1e-6));
  CHECK(top[0][2].probability == doctest::Approx(0.0982931).epsilon(1e-6));
  // Without the cap: softmax(2, 0, 2) = e² / (2e² + 1) = 0.4683105, 1 / (2e² + 1) = 0.0633789.
  const auto plain = top_predictions(TokenTable(w), hidden, 2, 0.0f);
  REQUIRE(plain.at(0).size() == 2);
  CHECK(plain[0][0].logit == 2.0f);
  CHECK(plain[0][1].probability == doctest::Approx(0.4683105).epsilon(1e-6));
}

TEST_CASE(
    "logits: probabilities over a vocabulary of several blocks sum to 1, whatever block holds the "
    "max") {
  const Eigen::Index vocab = 2 * TokenTable::k_block_rows + 101, d = 4;
  Matrix w(vocab, d);
  for (Eigen::Index i = 0; i < vocab; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) w(i, j) = std::sin(0.01f * float(i * (j + 1)) + float(j));
  }
  w.row(vocab - 1) *= 8.0f;  // the largest logits sit in the last, short block: the sum is rescaled
  Matrix hidden(3, d);
  hidden << 1, 0.5, -1, 2,  //
      -3, 1, 0, 0.25,       //
      0, 0, 0, 0;           // every logit 0: uniform
  const auto top = top_predictions(TokenTable(w), hidden, int(vocab), 0.0f);
  for (size_t p = 0; p < 3; ++p) {
    CAPTURE(p);
    REQUIRE(top[p].size() == size_t(vocab));
    double sum = 0;
    for (const Prediction& t : top[p]) sum += t.probability;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    for (size_t r = 1; r < top[p].size(); ++r) CHECK_FALSE(top[p][r].logit > top[p][r - 1].logit);
  }
  CHECK(top[2][0].probability == doctest::Approx(1.0 / double(vocab)).epsilon(1e-6));
  CHECK(top[2][0].id == 0);  // equal logits: lower ids first
  CHECK(top_predictions(TokenTable(w), hidden, 5000000, 0.0f)[0].size() ==
        size_t(vocab));  // K clamped
}

TEST_CASE("logits: config.json's final_logit_softcapping is the cap, null is none") {
  TempDir dir;
  std::filesystem::copy_file(k_torch / "hf_qwen3" / "model.safetensors", dir / "model.safetensors");
  std::ofstream(dir / "config.json")
      << R"({"num_attention_heads": 4, "final_logit_softcapping": 30.0})";
  CHECK(load_model(dir.path(), llama_layout()).config.final_logit_softcap == 30.0f);
  std::ofstream(dir / "config.json")
      << R"({"num_attention_heads": 4, "final_logit_softcapping": null})";
  CHECK(load_model(dir.path(), llama_layout()).config.final_logit_softcap == 0.0f);
}

TEST_CASE(
    "logits: run --logits prints each position's top K, a model without an unembedding is "
    "refused") {
  const std::string llama =
      "run -m tests/fixtures/torch/hf_llama --layout-file tests/fixtures/torch/llama_layout.json "
      "--ids tests/fixtures/torch/hf_llama/ids.txt --no-heatmap ";
  const auto csv = run_attnviz(llama + "--table none --format csv --logits 2");
  REQUIRE_MESSAGE(csv.exit_code == 0, csv.err);
  // ids 34 14 28 …: torch.topk's first two at position 0 are logits.safetensors' top5[0, 0:2].
  const SafetensorsFile expected =
      SafetensorsFile::open(k_torch / "hf_llama" / "logits.safetensors");
  const Tensor top5 = expected.load("top5");
  const std::string first = csv.out.substr(0, csv.out.find('\n', csv.out.find('\n') + 1));
  CHECK(first.starts_with("position,token,rank,id,next,logit,probability\n0,#34,1," +
                          std::to_string(int(top5.data[0])) + ",#" +
                          std::to_string(int(top5.data[0])) + ","));
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + 7 * 2);

  const auto both = run_attnviz(llama + "--format csv --layer 0 --logits 2");
  CHECK(both.exit_code == 2);
  CHECK_MESSAGE(
      contains(both.err, "--format csv writes one table: give --table none with --logits"),
      both.err);
  const auto bert = run_attnviz("run -m tests/fixtures/torch/hf_bert --ids '1 2 3' --logits 3");
  CHECK(bert.exit_code == 2);
  CHECK(bert.out.empty());
  CHECK_MESSAGE(
      contains(bert.err,
               "--logits: hf_bert (bert layout, encoder) has no unembedding to predict tokens "
               "with: no lm_head tensor (role unembed.weight) and tie_word_embeddings is false"),
      bert.err);
  const auto lone = run_attnviz("run -m samples/mha --ids '1 2' --logits 3");
  CHECK(lone.exit_code == 2);
  CHECK_MESSAGE(contains(lone.err, "no lm_head tensor (role unembed.weight) and no token table"),
                lone.err);
}
