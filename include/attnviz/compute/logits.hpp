// The model's next-token predictions: logits = hidden · W_unembedᵀ (soft-capped when the config
// says), softmax over the whole vocabulary, the top K of each position.
#pragma once

#include <cstdint>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// W_unembed [vocab, D]: the lm_head when the file has one, else the token table when tied; null
// when the model has neither (an encoder, a lone attention module, an untied decoder without
// lm_head).
const TokenTable* unembedding(const Model& model);

struct Prediction {
  int64_t id = 0;
  float logit = 0;        // after the soft-cap, if any
  float probability = 0;  // softmax over the whole vocabulary
};

// For each row of `hidden` (the final hidden states, after the final norm), the k tokens with the
// highest logits, highest first (ties: lower id first). `bias` (when not empty, [vocab]) is added
// to the logits (Marian's final_logits_bias); then `cap` > 0: logits = cap · tanh(logits / cap).
// The vocabulary streams in blocks of TokenTable::k_block_rows against blocks of positions: no [N,
// vocab] matrix is held. k is clamped to the vocabulary's size.
std::vector<std::vector<Prediction>> top_predictions(const TokenTable& unembed,
                                                     const Matrix& hidden, int k, float cap,
                                                     const RowVector& bias = {});

// The model's own: top_predictions over unembedding(model) (which must exist) of hidden × the
// config's unembed_input_scale (T5's d_model^−½ when tied), with its logit bias and soft-cap.
std::vector<std::vector<Prediction>> model_predictions(const Model& model, const Matrix& hidden,
                                                       int k);

}  // namespace attnviz
