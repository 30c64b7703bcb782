// Bahdanau et al. (2015)'s additive attention score, as a map carries it (MapInfo::additive).
#pragma once

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// e_ij = v · tanh(q_i + k_j) + b (Bahdanau et al. 2015, appendix A.1.2; the translation tutorial's
// BahdanauAttention: Va(tanh(Wa(s) + Ua(h)))): q_i = W s_i + b_W, the decoder's state before step
// i projected, and k_j = U h_j + b_U, an encoder output projected, are what the map's
// queries_and_keys hand over; its values are the encoder outputs h_j themselves. No scale: the
// score is the network's output as it is.
struct AdditiveScore {
  RowVector v;  // [H] (Va's weight)
  float b = 0;  // Va's bias
  // The score of one query and one key row, [H] each.
  float score(ConstMatrixRef q_row, ConstMatrixRef k_row) const {
    return ((q_row + k_row).array().tanh().matrix() * v.transpose())(0, 0) + b;
  }
};

}  // namespace attnviz
