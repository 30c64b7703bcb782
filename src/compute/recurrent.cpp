// nn.GRU and Bahdanau's additive attention, as PyTorch's translation tutorial runs them.
#include "attnviz/compute/recurrent.hpp"

#include <fmt/format.h>

#include <algorithm>

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

Matrix recurrent_encoder(ConstMatrixRef x, const RecurrentWeights& w) {
  return gru_sequence(x, RowVector::Zero(w.encoder.hidden()), w.encoder);
}

namespace {

// The map's facts: one head, no scale, the additive score's v and b.
MapInfo additive_map(const AttentionSetup& setup, const AdditiveAttentionWeights& w, int n_query,
                     int n_key) {
  MapInfo info;
  info.id = HeadId{setup.stack, 0, Site::cross, 0};
  info.n_heads = 1;
  info.n_query = n_query;
  info.n_key = n_key;
  info.d_head = static_cast<int>(w.va.size());
  info.scale = 1.0f;
  info.additive = std::make_shared<const AdditiveScore>(AdditiveScore{w.va, w.bv});
  info.mask = setup.mask;
  info.query_labels = setup.query_labels;
  info.key_labels = setup.key_labels;
  return info;
}

}  // namespace

Matrix recurrent_decoder(ConstMatrixRef x, ConstMatrixRef memory, const RecurrentWeights& w,
                         const AttentionSetup& setup) {
  const Mask& mask = *setup.mask;
  if (mask.n_pad_keys > 0 || mask.window > 0 || mask.matrix) {
    throw usage_error(fmt::format(
        "the GRU decoder's additive attention reads every source token (the translation "
        "tutorial's model has no mask): the source mask {} does not apply",
        mask.describe()));
  }
  const Eigen::Index n = x.rows(), h = w.decoder.hidden();
  const Matrix keys = memory;
  Matrix states(n, h), queries(n, h), contexts(n, h), scores(n, keys.rows()), probs(n, keys.rows()),
      before(n, h);
  RowVector s = keys.row(keys.rows() - 1);  // decoder_hidden = encoder_hidden
  RowVector input(2 * h);
  for (Eigen::Index i = 0; i < n; ++i) {
    const AdditiveStep step = additive_attention(s, keys, w.attention);
    before.row(i) = s;
    scores.row(i) = step.scores;
    probs.row(i) = step.weights;
    contexts.row(i) = step.context;
    input << x.row(i), step.context;  // torch.cat((embedded, context), dim=2)
    s = gru_step(input, s, w.decoder);
    states.row(i) = s;
  }
  if (AttentionSink* sink = setup.sink) {
    const MapInfo info =
        additive_map(setup, w.attention, static_cast<int>(n), static_cast<int>(keys.rows()));
    // What the score adds: q_i = W s_{i−1} + b_W and k_j = U h_j + b_U.
    queries = before * w.attention.wa.transpose();
    queries.rowwise() += w.attention.ba;
    Matrix projected_keys = keys * w.attention.ua.transpose();
    projected_keys.rowwise() += w.attention.bu;
    sink->begin_map(info);
    sink->queries_and_keys(info, queries, projected_keys);
    sink->head_values(info, keys);
    const int rows = std::max(1, setup.block_rows);
    for (Eigen::Index r0 = 0; r0 < n; r0 += rows) {
      const Eigen::Index r1 = std::min<Eigen::Index>(n, r0 + rows);
      sink->on_block(AttentionBlock(info, static_cast<int>(r0), static_cast<int>(r1),
                                    scores.middleRows(r0, r1 - r0), probs.middleRows(r0, r1 - r0)));
    }
    sink->head_output(info, contexts);
    sink->end_map(info);
    sink->attention_output(info, before, keys, contexts, contexts);
  }
  return states;
}

}  // namespace attnviz
