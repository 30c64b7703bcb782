// One head's computation kept whole, for `attnviz explain`: the inputs its projections read, its
// Q, K, V, the scaled and masked scores, the softmax weights, its output P·V, and the layer's
// merged heads and output projection. Only the chosen head is kept: N² floats for its scores and
// weights.
#pragma once

#include <optional>
#include <string>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/attention_block.hpp"

namespace attnviz {

struct HeadTrace {
  MapInfo info;      // the head's map (labels, mask, scale, d_head); info.mask kept alive by it
  Matrix x_q, x_kv;  // [n_query, d_in], [n_key, d_in]: what W_q and W_k / W_v multiply
  Matrix q, k, v;    // this head's [n_query, d_k], [n_key, d_k], [n_key, d_v]
  Matrix scores;   // [n_query, n_key]: scale · q·k as the model computed it, −inf where masked
  Matrix probs;    // [n_query, n_key]: softmax over the allowed keys
  RowVector sink;  // [n_query]: the sink's weight per row under a sink logit (gpt-oss), else empty
  Matrix output;   // [n_query, d_v]: P·V, this head's part of the merge
  Matrix merged, out;     // the layer's [n_query, heads · d_v] and [n_query, d_out] after W_O
  std::string placement;  // how the sublayer joins the residual stream (SublayerStep::placement),
                          // "" if unknown
};

// A sink keeping the head `id` names (stack, layer, site, head) as forward computes it.
class HeadTracer : public AttentionSink {
 public:
  explicit HeadTracer(HeadId id, int max_tokens = 4096);
  void begin_map(const MapInfo& info) override;
  void queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) override;
  void head_values(const MapInfo& info, ConstMatrixRef v) override;
  void on_block(const AttentionBlock& block) override;
  void head_output(const MapInfo& info, ConstMatrixRef o) override;
  void attention_output(const MapInfo& info, ConstMatrixRef x_q, ConstMatrixRef x_kv,
                        ConstMatrixRef merged, ConstMatrixRef out) override;
  void sublayer(const SublayerStep& step, ConstMatrixRef x, ConstMatrixRef f_input,
                ConstMatrixRef update, ConstMatrixRef out) override;
  // The trace once the layer's attention has ended; an Error when forward never reached the head.
  const HeadTrace& trace() const;

 private:
  bool is_mine(const HeadId& id) const;
  bool is_my_layer(const HeadId& id) const;
  HeadId id_;
  int max_tokens_;
  bool active_ = false, complete_ = false;
  HeadTrace trace_;
};

}  // namespace attnviz
