// The recurrent encoder-decoder of PyTorch's translation tutorial ("NLP From Scratch: Translation
// with a Sequence to Sequence Network and Attention"): nn.GRU, and Bahdanau et al. (2015)'s
// additive attention as its BahdanauAttention computes it. The building blocks of the tutorial's
// model; the family that loads it is yet to come.
#pragma once

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// One layer of nn.GRU (batch_first): weight_ih_l0 [3H, I], weight_hh_l0 [3H, H], bias_ih_l0 and
// bias_hh_l0 [3H], the gates' rows in PyTorch's order r, z, n.
struct GruWeights {
  Matrix w_ih, w_hh;
  RowVector b_ih, b_hh;
  int hidden() const { return static_cast<int>(w_hh.cols()); }
};

// One step: r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
// n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h.
RowVector gru_step(const RowVector& x, const RowVector& h, const GruWeights& w);

// nn.GRU over the rows of x [T, I] from h0 [H]: each step's h' [T, H] (the module's `output`; its
// last row is `hidden`).
Matrix gru_sequence(const Matrix& x, const RowVector& h0, const GruWeights& w);

// BahdanauAttention(hidden_size): Wa, Ua [H, H] with biases, Va [1, H] with its bias.
struct AdditiveAttentionWeights {
  Matrix wa, ua;
  RowVector ba, bu, va;
  float bv = 0;
};

// One decoder step's attention: score_j = Va · tanh(Wa s + Ua h_j) + b_v for the query s [H] and
// each key h_j (a row of keys [S, H]), weights = softmax(scores), context = weights · keys.
struct AdditiveStep {
  RowVector scores, weights, context;
};
AdditiveStep additive_attention(const RowVector& query, const Matrix& keys,
                                const AdditiveAttentionWeights& w);

}  // namespace attnviz
