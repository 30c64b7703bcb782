// Watches every attention map for NaN and ±inf weights, so every command that runs a model can say
// so on stderr (a NaN must never pass for a number). One vectorised test per block when all is
// well.
#pragma once

#include <vector>

#include "attnviz/analysis/check.hpp"

namespace attnviz {

class NonFiniteMonitor : public AttentionSink {
 public:
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  // One Problem::non_finite finding per map that had NaN or ±inf weights (worst = cell count).
  const std::vector<Finding>& findings() const { return findings_; }
  // "attnviz: warning: …" lines for stderr, one per finding; "" when every weight was finite.
  std::string warnings() const;

 private:
  Finding current_{};
  std::vector<Finding> findings_;
};

}  // namespace attnviz
