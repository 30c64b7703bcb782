// The residual stream around each sublayer (a block as x + Sublayer(Norm(x)) or
// Norm(x + Sublayer(x))): per sublayer the mean over tokens of ‖x‖ going in, ‖what f read‖ (the
// norm's output under pre-norm), ‖f's update‖ and ‖x‖ coming out, for `attnviz residual`.
#pragma once

#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

struct SublayerNorms {
  std::string stack, kind, placement;
  int layer = 0;
  int tokens = 0;
  double x = 0, f_input = 0, update = 0, out = 0;  // mean per-token L2 norms
  double cosine = 0;  // mean cos(x, update): does the update reinforce (> 0) or oppose the stream
};

class ResidualCollector : public AttentionSink {
 public:
  void on_block(const AttentionBlock&) override {}
  void sublayer(const SublayerStep& step, ConstMatrixRef x, ConstMatrixRef f_input,
                ConstMatrixRef update, ConstMatrixRef out) override;
  const std::vector<SublayerNorms>& sublayers() const { return sublayers_; }

 private:
  std::vector<SublayerNorms> sublayers_;
};

}  // namespace attnviz
