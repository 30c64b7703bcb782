// nn.GRU and Bahdanau's additive attention, as PyTorch's translation tutorial runs them.
#include "attnviz/compute/recurrent.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

RowVector sigmoid(const RowVector& x) {
  return (1.0f / (1.0f + (-x.array()).exp())).matrix();
}

void check_gru(const GruWeights& w, Eigen::Index input) {
  const Eigen::Index h = w.w_hh.cols();
  if (w.w_hh.rows() != 3 * h || w.w_ih.rows() != 3 * h || w.w_ih.cols() != input ||
      w.b_ih.size() != 3 * h || w.b_hh.size() != 3 * h) {
    throw Error(fmt::format(
        "GRU: weight_ih [{}, {}], weight_hh [{}, {}], biases [{}] and [{}] do not fit an input of "
        "{} and a hidden state of {} (expected [3H, I], [3H, H], [3H], [3H])",
        w.w_ih.rows(), w.w_ih.cols(), w.w_hh.rows(), w.w_hh.cols(), w.b_ih.size(), w.b_hh.size(),
        input, h));
  }
}

}  // namespace

RowVector gru_step(const RowVector& x, const RowVector& h, const GruWeights& w) {
  check_gru(w, x.size());
  const Eigen::Index n = w.hidden();
  const RowVector gi = x * w.w_ih.transpose() + w.b_ih;  // [r | z | n] of the input
  const RowVector gh = h * w.w_hh.transpose() + w.b_hh;  // … of the hidden state
  const RowVector r = sigmoid(gi.head(n) + gh.head(n));
  const RowVector z = sigmoid(gi.segment(n, n) + gh.segment(n, n));
  const RowVector cand = (gi.tail(n).array() + r.array() * gh.tail(n).array()).tanh().matrix();
  return ((1.0f - z.array()) * cand.array() + z.array() * h.array()).matrix();
}

Matrix gru_sequence(const Matrix& x, const RowVector& h0, const GruWeights& w) {
  Matrix out(x.rows(), w.hidden());
  RowVector h = h0;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    h = gru_step(x.row(t), h, w);
    out.row(t) = h;
  }
  return out;
}

AdditiveStep additive_attention(const RowVector& query, const Matrix& keys,
                                const AdditiveAttentionWeights& w) {
  const Eigen::Index h = query.size();
  if (w.wa.rows() != h || w.wa.cols() != h || w.ua.rows() != h || w.ua.cols() != keys.cols() ||
      w.ba.size() != h || w.bu.size() != h || w.va.size() != h) {
    throw Error(fmt::format(
        "additive attention: Wa [{}, {}], Ua [{}, {}], Va [{}] do not fit a query of {} and keys "
        "of "
        "{}",
        w.wa.rows(), w.wa.cols(), w.ua.rows(), w.ua.cols(), w.va.size(), h, keys.cols()));
  }
  if (keys.rows() == 0) throw Error("additive attention: no keys to attend to");
  AdditiveStep step;
  const RowVector projected_query = query * w.wa.transpose() + w.ba;  // Wa s
  Matrix e = keys * w.ua.transpose();                                 // Ua h_j
  e.rowwise() += w.bu + projected_query;
  step.scores = (e.array().tanh().matrix() * w.va.transpose()).transpose();  // Va · tanh(…)
  step.scores.array() += w.bv;
  const float top = step.scores.maxCoeff();
  step.weights = (step.scores.array() - top).exp().matrix();
  step.weights /= step.weights.sum();
  step.context = step.weights * keys;
  return step;
}

}  // namespace attnviz
