// Mask and numerics checks, row by row: the probabilities a model produced are verified, not
// trusted.
#include "attnviz/analysis/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/plural.hpp"
#include "attnviz/core/row_list.hpp"

namespace attnviz {

namespace {
constexpr Problem k_problems[] = {Problem::fully_masked, Problem::masked_leak, Problem::bad_sum,
                                  Problem::non_finite};
}  // namespace

const char* problem_name(Problem problem) {
  switch (problem) {
    case Problem::fully_masked:
      return "fully_masked";
    case Problem::masked_leak:
      return "masked_leak";
    case Problem::bad_sum:
      return "bad_sum";
    case Problem::non_finite:
      return "non_finite";
  }
  return "unknown";
}

std::string Finding::message() const {
  const auto where = [&](const char* what) {
    return fmt::format("{}: {} in query {} {} ({} of {})", id.title(), what,
                       rows.size() == 1 ? "row" : "rows", format_row_list(rows), rows.size(),
                       n_query);
  };
  switch (problem) {
    case Problem::fully_masked:
      return where("every key is masked") + ": no attention is defined (a zero row)";
    case Problem::masked_leak:
      return where("weight on masked keys") + fmt::format(": up to {:.6g} in a row", worst);
    case Problem::bad_sum:
      if (sink) {
        return where(
                   "the keys' weights and the sink's do not sum to 1, or the sink's is not its "
                   "scores'") +
               fmt::format(": off by up to {:.3g} (tolerance {:g})", worst, k_row_sum_tolerance);
      }
      return where("weights do not sum to 1") +
             fmt::format(": |sum - 1| up to {:.3g} (tolerance {:g})", worst, k_row_sum_tolerance);
    case Problem::non_finite:
      return where("NaN or Inf") + ": " + count_of(static_cast<long long>(worst), "cell");
  }
  return where("a problem");
}

void CheckCollector::begin_map(const MapInfo& info) {
  current_.clear();
  active_ = selection_.matches(info.id);
  if (!active_) return;
  for (Problem p : k_problems)
    current_.push_back(Finding{info.id, p, {}, info.n_query, 0.0, info.sink_logit.has_value()});
}

void CheckCollector::check_row(const AttentionBlock& block, int row) {
  const MapInfo& info = *block.info;
  const Mask& mask = *info.mask;
  const float* probs = block.probs.row(row - block.row_begin).data();
  const float* scores = block.scores.row(row - block.row_begin).data();
  int n_allowed = 0, n_non_finite = 0;
  double leak = 0.0, sum = 0.0;
  // allowed(row, j), read from the mask's key range and its file matrix instead of cell by cell.
  const auto [lo, hi] = mask.key_range(row, info.n_key);
  const uint8_t* keep = mask.matrix ? mask.matrix->row(row).data() : nullptr;
  for (int j = 0; j < info.n_key; ++j) {
    const bool allowed = j >= lo && j < hi && (!keep || keep[j] != 0);
    n_allowed += allowed ? 1 : 0;
    const double p = probs[j];
    // A masked score may be -inf (masked_fill) or a large negative fill such as -1e9; NaN or +inf
    // there is as wrong as in an allowed key. A cell counts once, whether its score, its weight or
    // both are non-finite.
    const float s = scores[j];
    const bool bad_score = allowed ? !std::isfinite(s) : std::isnan(s) || s == INFINITY;
    if (bad_score || !std::isfinite(p)) ++n_non_finite;
    if (!allowed && std::isfinite(p)) leak += std::fabs(p);
    sum += p;
  }
  // With a sink logit σ the keys' weights sum to 1 − p_sink: the sink's weight the row reports is
  // counted in, and must be the one its scores give, exp(σ − m) / (exp(σ − m) + Σ exp(s_j − m)).
  double sink_error = 0.0;
  if (info.sink_logit && n_allowed > 0) {
    const double reported = block.sink(row), sigma = *info.sink_logit;
    double m = sigma;
    for (int j = lo; j < hi; ++j) {
      if (!keep || keep[j] != 0) m = std::max(m, double(scores[j]));
    }
    double z = std::exp(sigma - m);
    const double sink_term = z;
    for (int j = lo; j < hi; ++j) {
      if (!keep || keep[j] != 0) z += std::exp(double(scores[j]) - m);
    }
    sink_error = std::fabs(reported - sink_term / z);
    if (!std::isfinite(reported)) ++n_non_finite;
    sum += reported;
  }
  const auto note = [&](Problem p, double value) {
    Finding& f = current_[static_cast<size_t>(p)];
    f.rows.push_back(row);
    f.worst = std::max(f.worst, value);
  };
  if (n_allowed == 0) note(Problem::fully_masked, 0.0);
  if (leak > 0.0) note(Problem::masked_leak, leak);
  // Σ_j p_ij = 1 for a row with an allowed key; a fully masked row must be all zeros (caught
  // above).
  // (NaN compares false: a NaN row is reported as non-finite, not as a bad sum.)
  const double off = info.rows_below_one ? sum - 1.0 : std::fabs(sum - 1.0);
  if (n_allowed > 0 && (off > k_row_sum_tolerance || sink_error > k_row_sum_tolerance)) {
    note(Problem::bad_sum, std::max(off, sink_error));
  }
  if (n_non_finite > 0) {
    Finding& f = current_[static_cast<size_t>(Problem::non_finite)];
    f.rows.push_back(row);
    f.worst += n_non_finite;
  }
}

void CheckCollector::on_block(const AttentionBlock& block) {
  if (!active_) return;
  for (int i = block.row_begin; i < block.row_end; ++i) check_row(block, i);
}

void CheckCollector::end_map(const MapInfo& /*info*/) {
  if (!active_) return;
  active_ = false;
  ++maps_;
  bool any = false;
  for (auto& f : current_) {
    if (f.rows.empty()) continue;
    any = true;
    findings_.push_back(std::move(f));
  }
  if (any) ++maps_with_problems_;
  current_.clear();
}

std::string CheckCollector::summary() const {
  if (findings_.empty()) {
    return fmt::format("check: {} {}, no problems", maps_, maps_ == 1 ? "map" : "maps");
  }
  return fmt::format("check: {} {} in {} of {} {}", findings_.size(),
                     findings_.size() == 1 ? "problem" : "problems", maps_with_problems_, maps_,
                     maps_ == 1 ? "map" : "maps");
}

}  // namespace attnviz
