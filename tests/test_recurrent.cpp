// The translation tutorial's recurrent pieces against PyTorch (make_fixtures.py's gru_bahdanau):
// torch's own nn.GRU over five steps, and the tutorial's BahdanauAttention for one query; plus the
// GRU step by hand at its extremes and the shapes each refuses.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/compute/recurrent.hpp"
#include "check_close.hpp"
#include "error_of.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;

namespace {

Matrix matrix_of(const nlohmann::json& rows) {
  Matrix m(Eigen::Index(rows.size()), Eigen::Index(rows.at(0).size()));
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
  return m;
}

RowVector row_of(const nlohmann::json& values) {
  RowVector v(Eigen::Index(values.size()));
  for (size_t i = 0; i < values.size(); ++i) v[Eigen::Index(i)] = values[i];
  return v;
}

nlohmann::json reference() {
  std::ifstream in(test::k_torch / "gru_bahdanau.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("recurrent: nn.GRU over five steps is torch's, its last output the hidden state") {
  const auto j = reference().at("gru");
  const GruWeights w{matrix_of(j.at("weight_ih")), matrix_of(j.at("weight_hh")),
                     row_of(j.at("bias_ih")), row_of(j.at("bias_hh"))};
  const Matrix out = gru_sequence(matrix_of(j.at("x")), row_of(j.at("h0")), w);
  test::check_close(out, matrix_of(j.at("output")), 1e-6f, "GRU output");
  test::check_close(Matrix(out.bottomRows(1)), Matrix(row_of(j.at("hidden"))), 1e-6f, "hidden");
}

TEST_CASE("recurrent: the GRU step by hand — a shut update gate keeps h, an open one takes n") {
  // H = 1, I = 1, no input weights: r = σ(b_r), z = σ(b_z), n = tanh(b_in + r·(w_hn h + b_hn)).
  GruWeights w{Matrix::Zero(3, 1), Matrix::Zero(3, 1), RowVector::Zero(3), RowVector::Zero(3)};
  RowVector h(1), x(1);
  h << 0.5f;
  x << 9.0f;
  w.b_ih << 0, 40, 0.3f;  // z = σ(40) = 1: h' = h
  CHECK(gru_step(x, h, w)[0] == doctest::Approx(0.5f));
  w.b_ih << 40, -40, 0.3f;  // z = 0, r = 1: h' = n = tanh(0.3 + 1 · (2 · 0.5 + 0.1))
  w.w_hh << 0, 0, 2;
  w.b_hh << 0, 0, 0.1f;
  CHECK(gru_step(x, h, w)[0] == doctest::Approx(std::tanh(0.3 + 1.1)).epsilon(1e-6));
  const GruWeights wrong{Matrix::Zero(3, 2), Matrix::Zero(3, 1), RowVector::Zero(3),
                         RowVector::Zero(3)};
  CHECK(test::error_of([&] {
          (void)gru_step(x, h, wrong);
        }).find("do not fit an input of 1 and a hidden state of 1") != std::string::npos);
}

TEST_CASE("recurrent: Bahdanau's additive attention is the tutorial's BahdanauAttention") {
  const auto j = reference().at("attention");
  const AdditiveAttentionWeights w{matrix_of(j.at("Wa")), matrix_of(j.at("Ua")),
                                   row_of(j.at("ba")),    row_of(j.at("bu")),
                                   row_of(j.at("Va")),    j.at("bv").get<float>()};
  const Matrix keys = matrix_of(j.at("keys"));
  const AdditiveStep step = additive_attention(row_of(j.at("query")), keys, w);
  test::check_close(Matrix(step.scores), Matrix(row_of(j.at("scores"))), 1e-6f, "scores");
  test::check_close(Matrix(step.weights), Matrix(row_of(j.at("weights"))), 1e-6f, "weights");
  test::check_close(Matrix(step.context), Matrix(row_of(j.at("context"))), 1e-6f, "context");
  CHECK(step.weights.sum() == doctest::Approx(1.0f));
  CHECK(test::error_of([&] { (void)additive_attention(row_of(j.at("query")), Matrix(0, 6), w); }) ==
        "additive attention: no keys to attend to");
}
