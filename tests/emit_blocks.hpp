// Feeding a hand-made map to a sink the way forward() does: begin_map, row blocks in order,
// end_map.
#pragma once

#include <algorithm>

#include "attnviz/event/attention_block.hpp"

namespace attnviz::test {

inline void emit_blocks(AttentionSink& sink, const MapInfo& info, const Matrix& scores,
                        const Matrix& probs, int block_rows) {
  sink.begin_map(info);
  for (int r0 = 0; r0 < info.n_query; r0 += block_rows) {
    const int r1 = std::min(info.n_query, r0 + block_rows);
    sink.on_block(AttentionBlock(info, r0, r1, scores.middleRows(r0, r1 - r0),
                                 probs.middleRows(r0, r1 - r0)));
  }
  sink.end_map(info);
}

}  // namespace attnviz::test
