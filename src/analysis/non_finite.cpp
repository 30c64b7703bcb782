// NaN / ±inf attention weights, found block by block and reported per map.
#include "attnviz/analysis/non_finite.hpp"

#include <algorithm>

#include "attnviz/core/vector_math.hpp"

namespace attnviz {

void NonFiniteMonitor::begin_map(const MapInfo& info) {
  current_ = Finding{info.id, Problem::non_finite, {}, info.n_query, 0.0};
}

void NonFiniteMonitor::on_block(const AttentionBlock& block) {
  // Under a causal mask the weights after a row's own key are 0 by construction (AttentionBlock's
  // contract), so each row is read up to its diagonal: half the cells of a map.
  const bool causal = block.info->mask->causal;
  const auto n_key = block.probs.cols();
  for (Eigen::Index r = 0; r < block.probs.rows(); ++r) {
    const Eigen::Index live =
        causal ? std::min<Eigen::Index>(n_key, block.row_begin + r + 1) : n_key;
    const auto row = block.probs.row(r).head(live);
    if (all_finite(row.data(), static_cast<size_t>(live))) continue;
    current_.rows.push_back(block.row_begin + static_cast<int>(r));
    current_.worst += static_cast<double>((!row.array().isFinite()).count());
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
    out +=
        "attnviz: warning: " + f.message() +
        " of weights (the model computed them: check its weights and inputs; maps draw them '!' / "
        "magenta)\n";
  }
  return out;
}

}  // namespace attnviz
