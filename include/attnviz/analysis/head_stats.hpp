// Per-head softmax-saturation statistics, streamed over row blocks, with the unscaled
// counterfactual, logit variances against the independence prediction, attention-sink mass and a
// head role label.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attnviz/analysis/row_stats.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

struct StatsOptions {
  double saturation = 0.99;  // a row is saturated when its max weight >= this
  double temperature = 1.0;  // counterfactual logits = raw q·k / temperature (1 = simply unscaled)
  HeadSelection selection;   // heads to analyse (--layer / --site / --head)
};

// Role thresholds: a positional role needs a mean mass >= k_role_mass on its key, "broad" a mean
// normalised entropy >= k_role_broad_entropy, "concentrated" a mean max weight >= k_role_mass.
inline constexpr double k_role_mass = 0.5;
inline constexpr double k_role_broad_entropy = 0.9;

enum class HeadRole { broad, sink, previous, diagonal, concentrated, mixed };
// "broad", "sink", "previous-token", "self", "concentrated", "mixed"
const char* role_name(HeadRole role);
std::optional<HeadRole> parse_role(const std::string& name);

// Pooled figures of one head, or of several heads (a layer, everything): merge() adds them up.
struct HeadStats {
  HeadId id;      // for a pooled group: the first head's id
  int heads = 0;  // how many heads were pooled
  int n_query = 0, n_key = 0, d_k = 0;
  double scale = 1.0;
  // Bahdanau's additive scores (MapInfo::additive): no q·k, so the q·k figures (raw and scaled
  // logits, the predicted variances, var q and var k) and the counterfactual of another q·k scale
  // stay empty and print as "-".
  bool additive = false;
  std::string mask;                // Mask::describe()
  int64_t fully_masked_rows = 0;   // rows with no allowed key: no figures (a zero row), see `check`
  int64_t single_key_rows = 0;     // rows with one allowed key: one-hot by construction
  int64_t non_finite_rows = 0;     // rows with a NaN / inf weight or a NaN / +inf score: no figures
  RowSummary scaled;               // the softmax the model computed
  RowSummary unscaled;             // the counterfactual: softmax(q·k / temperature)
  Moments raw_logits;              // q·k over allowed cells
  Moments scaled_logits;           // scale · q·k over allowed cells
  Summary predicted_raw_variance;  // d_k · var(q) · var(k) per head (independence prediction)
  Summary predicted_scaled_variance;  // scale² · d_k · var(q) · var(k) per head
  Summary q_variance, k_variance;
  // Per row with a choice, the weight of a learned sink logit (gpt-oss): the share no key gets.
  // Empty (count 0) for a head without one.
  Summary sink_logit_weight;

  void merge(const HeadStats& other);
  HeadRole role() const;  // from `scaled`, thresholds above
};

// An AttentionSink that keeps one HeadStats per selected map and never more than one row of
// scratch: every figure is a running sum over the rows of each block.
class StatsCollector : public AttentionSink {
 public:
  explicit StatsCollector(StatsOptions options) : options_(std::move(options)) {}
  void begin_map(const MapInfo& info) override;
  void queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;

  const std::vector<HeadStats>& heads() const { return heads_; }
  const StatsOptions& options() const { return options_; }

 private:
  // Row i from the kernel's sums over its n allowed keys p, s; false (nothing added) when a value
  // is NaN or ±inf.
  bool add_row(const AttentionBlock& block, int i, const float* p, const float* s, size_t n,
               double c);
  // Row i key by key in double: rows with no choice, non-finite values, or no kernel (c ≤ 0).
  void add_row_scalar(const AttentionBlock& block, int i);

  StatsOptions options_;
  std::vector<HeadStats> heads_;
  bool active_ = false;                              // the current map is selected
  std::vector<float> packed_probs_, packed_scores_;  // a file-masked row's allowed keys
  std::vector<uint8_t> allowed_;
  std::vector<double> logits_;
  std::vector<float> probs_;
  std::vector<float> counterfactual_;
  // A relative position bias (T5) by offset key − query, from index n_query − 1: one bucket lookup
  // per offset of the map, not per cell.
  std::vector<float> bias_by_offset_;
};

// Heads pooled per (stack, layer, site), in order of first appearance; and all heads pooled.
std::vector<HeadStats> pool_by_layer(const std::vector<HeadStats>& heads);
HeadStats pool_all(const std::vector<HeadStats>& heads);

}  // namespace attnviz
