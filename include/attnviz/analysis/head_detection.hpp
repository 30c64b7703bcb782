// Head detection as TransformerLens's detect_head defines it: how much of a head's attention falls
// on a detection pattern (previous token, duplicate token, induction, first token, or a user's 0/1
// matrix), streamed over the blocks of every self-attention map.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

// The detection patterns P (1 = the head is expected to attend there), for a query i and key j:
//   previous-token  j = i − 1
//   duplicate-token j < i and token j = token i
//   induction       j ≥ 1 and token j − 1 = token i and j − 1 < i (the token after an earlier copy)
//   sink            j = 0
//   user            the matrix's cell (i, j) is 1
// The first three are TransformerLens's get_*_detection_pattern; sink is attnviz's.
enum class DetectionPattern { previous_token, duplicate_token, induction, sink, user };

struct PatternSpec {
  DetectionPattern kind = DetectionPattern::previous_token;
  std::string name;                          // "previous-token", …, or the user file's stem
  std::shared_ptr<const MaskMatrix> matrix;  // user: [N, N], 1 = in the pattern
};

// The built-in patterns' names, in the order `heads` scores them when none is given.
inline constexpr const char* k_builtin_patterns[] = {"previous-token", "duplicate-token",
                                                     "induction", "sink"};
// "previous-token", "duplicate-token", "induction", "sink"; anything else is a usage error (a user
// pattern is a file, not a name).
PatternSpec builtin_pattern(const std::string& name);
// Whether the pattern compares token identities (duplicate-token, induction).
bool needs_tokens(DetectionPattern kind);

// TransformerLens's two error measures. mul: Σ A⊙P / Σ A, the share of the head's attention on
// the pattern. abs: 1 − Σ|A − P| / N (TransformerLens's 1 − mean|A − P|·N, not rounded to 3
// digits).
enum class ErrorMeasure { mul, abs };
ErrorMeasure parse_error_measure(const std::string& name);  // "mul" / "abs"

struct DetectionOptions {
  std::vector<PatternSpec> patterns;
  // Token identities, one per position (ids; for hash-embedded tokens, their text interned); empty
  // when no pattern needs them. The encoder stack of an encoder-decoder runs over the source.
  std::vector<int64_t> tokens, source_tokens;
  ErrorMeasure measure = ErrorMeasure::mul;
  bool exclude_bos =
      false;  // attention to key 0 left out of both sums (TransformerLens's exclude_bos)
  bool exclude_current = false;  // attention to key i left out (exclude_current_token)
  HeadSelection selection;
};

struct HeadScores {
  HeadId id;
  int n = 0;                    // tokens of the map
  std::vector<double> scores;   // one per pattern, in DetectionOptions::patterns' order
  double attention_left = 0.0;  // Σ A over the cells not excluded, per row (1 without exclusions)
  // Pooled over a batch (ScoreAggregate): `scores` are the means over `items` inputs, with their
  // population standard deviation, min and max; empty for one input.
  int64_t items = 0;
  std::vector<double> stddev, min, max;
  // Under ScoreAggregate(skip_undefined): per pattern, the inputs that had a number (NaN skipped).
  std::vector<int64_t> counts;
};

// Scores of many inputs pooled per head (Welford's mean and variance), in the order the inputs are
// added, so shards merged back into input order give the same figures as one run, bit for bit.
class ScoreAggregate {
 public:
  // skip_undefined: a NaN score is an input without that figure (a stats figure of rows it has none
  // of) and is left out of that pattern's figures, which say how many inputs they pool (`counts`;
  // NaN when none). Otherwise a NaN stays NaN: a detection score is NaN only from NaN weights.
  explicit ScoreAggregate(bool skip_undefined = false) : skip_undefined_(skip_undefined) {}
  // One input's heads; every input must score the same heads (an Error names the first that
  // differs).
  void add(const std::vector<HeadScores>& item);
  int64_t items() const { return items_; }
  std::vector<HeadScores> summary() const;

 private:
  struct Running {
    HeadScores head;  // id, n of the first input
    std::vector<double> mean, m2, min, max;
    std::vector<int64_t> count;   // inputs pooled per pattern
    double attention_left = 0.0;  // mean over inputs
  };
  bool skip_undefined_;
  std::vector<Running> heads_;
  int64_t items_ = 0;
};

// A sink scoring every selected square self-attention map (cross maps have no such patterns and are
// skipped); each row summed in float over its allowed keys, the rows accumulated in double.
class HeadDetector : public AttentionSink {
 public:
  explicit HeadDetector(DetectionOptions options);
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  const std::vector<HeadScores>& heads() const { return heads_; }
  const DetectionOptions& options() const { return options_; }

 private:
  // Keys of row i on the pattern, ascending, into `keys` (not for user patterns).
  void pattern_keys(DetectionPattern kind, int i, std::vector<int>& keys) const;
  bool excluded(int i, int j) const;

  DetectionOptions options_;
  // For position i: the nearest j < i holding the same token, or −1 (target, source).
  std::vector<int> target_links_, source_links_;
  const std::vector<int>* previous_same_ = &target_links_;  // the current map's
  std::vector<HeadScores> heads_;
  bool active_ = false;
  double attention_sum_ = 0.0;      // Σ A over the cells not excluded
  std::vector<double> on_pattern_;  // per pattern: Σ A over its cells not excluded (mul)
  std::vector<double>
      abs_correction_;  // per pattern: Σ (|A − 1| − A) over them, so Σ|A − P| = Σ A + this (abs)
  std::vector<int> keys_;  // scratch
};

}  // namespace attnviz
