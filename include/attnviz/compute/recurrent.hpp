// The recurrent encoder-decoder of PyTorch's translation tutorial ("NLP From Scratch: Translation
// with a Sequence to Sequence Network and Attention"): nn.GRU, and Bahdanau et al. (2015)'s
// additive attention as its BahdanauAttention computes it, and the model's two stacks as forward
// runs them (Config::recurrent).
#pragma once

#include "attnviz/compute/multi_head.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// One step: r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
// n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h.
RowVector gru_step(const RowVector& x, const RowVector& h, const GruWeights& w);

// nn.GRU over the rows of x [T, I] from h0 [H]: each step's h' [T, H] (the module's `output`; its
// last row is `hidden`).
Matrix gru_sequence(const Matrix& x, const RowVector& h0, const GruWeights& w);

// One decoder step's attention: score_j = Va · tanh(Wa s + Ua h_j) + b_v for the query s [H] and
// each key h_j (a row of keys [S, H]), weights = softmax(scores), context = weights · keys.
struct AdditiveStep {
  RowVector scores, weights, context;
};
AdditiveStep additive_attention(const RowVector& query, const Matrix& keys,
                                const AdditiveAttentionWeights& w);

// EncoderRNN over the embedded source x [S, H] from a zero state: its outputs [S, H], whose last
// row is the state the decoder starts from (the module's `hidden`).
Matrix recurrent_encoder(ConstMatrixRef x, const RecurrentWeights& w);

// AttnDecoderRNN.forward_step over the embedded target x [T, H], teacher-forced: step i's query is
// the state s_{i−1} (s_{−1}: the encoder's last output), its attention over the encoder outputs
// `memory` [S, H] gives the context c_i, and the GRU reads [x_i; c_i] into s_i. Returns the states
// [T, H] (the decoder's `out` gives the logits from them). The map [T, S] goes to setup.sink as
// (setup.stack, 0, cross, head 0) in row blocks, with MapInfo::additive set: its queries W s + b_W,
// keys U h + b_U, values `memory` and outputs c_i. Every source token is read: a mask that pads or
// hides a key is a usage error.
Matrix recurrent_decoder(ConstMatrixRef x, ConstMatrixRef memory, const RecurrentWeights& w,
                         const AttentionSetup& setup);

}  // namespace attnviz
