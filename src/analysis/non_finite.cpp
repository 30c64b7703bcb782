// NaN / ±inf attention weights, found block by block and reported per map.
#include "attnviz/analysis/non_finite.hpp"

namespace attnviz {

void NonFiniteMonitor::begin_map(const MapInfo& info) {
  current_ = Finding{info.id, Problem::non_finite, {}, info.n_query, 0.0};
}

void NonFiniteMonitor::on_block(const AttentionBlock& block) {
  if (block.probs.allFinite()) return;
  for (Eigen::Index r = 0; r < block.probs.rows(); ++r) {
    const auto bad = (!block.probs.row(r).array().isFinite()).count();
    if (bad == 0) continue;
    current_.rows.push_back(block.row_begin + static_cast<int>(r));
    current_.worst += static_cast<double>(bad);
  }
}

void NonFiniteMonitor::end_map(const MapInfo& /*info*/) {
  if (!current_.rows.empty()) findings_.push_back(std::move(current_));
  current_ = Finding{};
}

std::string NonFiniteMonitor::warnings() const {
  std::string out;
  for (const Finding& f : findings_) {
    // Weights only (check also counts scores): the cells the maps draw.
    out += "attnviz: warning: " + f.message() +
           " of weights (the model computed them: check its weights and inputs; maps draw them '!' / "
           "magenta)\n";
  }
  return out;
}

}  // namespace attnviz
