// Mask and numerics checks of every attention map (`attnviz check`, `run --check`): rows with no
// allowed key, weight on masked keys, rows not summing to 1, NaN/Inf. Streams over row blocks.
#pragma once

#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

// Exit code of `attnviz check` and `run --check` when a check fails (1 and 2 keep their meaning:
// a run that could not happen, a bad command line), so CI can tell "problems found" apart.
inline constexpr int k_exit_check_failed = 3;
// |Σ_j p_ij − 1| above this is a row that does not sum to 1.
inline constexpr double k_row_sum_tolerance = 1e-5;

enum class Problem {
  fully_masked,  // every key of the row is masked: no attention is defined (a zero row)
  masked_leak,   // non-zero weight on a key the mask hides (any |p| > 0 counts)
  bad_sum,     // a row with an allowed key whose weights do not sum to 1 within k_row_sum_tolerance
  non_finite,  // NaN or ±Inf in a weight or in the score of an allowed key; NaN or +Inf in a masked
               // one
};
const char* problem_name(
    Problem problem);  // "fully_masked", "masked_leak", "bad_sum", "non_finite"

// One kind of problem in one map: which rows, and the worst value seen (leaked mass, |sum − 1|).
struct Finding {
  HeadId id;
  Problem problem;
  std::vector<int> rows;  // increasing
  int n_query = 0;
  double worst = 0.0;
  bool sink = false;  // the map has a sink logit: the keys' weights and the sink's sum to 1
  // "layer 0 · self · head 2: every key is masked in query rows 0-3 (4 of 4): a zero row, not
  // attention"
  std::string message() const;
};

// Collects findings map by map; holds only the problem rows of the current map.
class CheckCollector : public AttentionSink {
 public:
  explicit CheckCollector(HeadSelection selection = {}) : selection_(std::move(selection)) {}
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;

  const std::vector<Finding>& findings() const { return findings_; }
  int maps_checked() const { return maps_; }
  int maps_with_problems() const { return maps_with_problems_; }
  // "check: 4 maps, no problems" or "check: 3 problems in 2 of 4 maps" (one line, no newline).
  std::string summary() const;

 private:
  void check_row(const AttentionBlock& block, int row);
  HeadSelection selection_;  // maps to check (--layer / --site / --head)
  bool active_ = false;
  std::vector<Finding> current_;  // one per Problem, in enum order
  std::vector<Finding> findings_;
  int maps_ = 0;
  int maps_with_problems_ = 0;
};

}  // namespace attnviz
