// `heads --batch FILE.jsonl` and `stats --batch FILE.jsonl`: one model, many inputs (or one shard
// of them), each input's figures per head computed one at a time and pooled per head; and `attnviz
// merge`, which pools shards' --items files into the same figures.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/batch/merge.hpp"
#include "attnviz/cli/prepare.hpp"
#include "batch_input.hpp"

namespace attnviz::detail {

// One input's figures per head: what a batch computes for each line (`run` holds that input);
// the input's warnings (NaN weights, …) are appended to `warnings`.
using ScoreInput = std::function<std::vector<HeadScores>(const PreparedRun& run,
                                                         std::vector<std::string>& warnings)>;

// Runs the model on the batch's inputs (this shard's), one at a time, each through `score`; pools
// per head in input order (stats: NaN figures skipped, ScoreAggregate); writes --items as it goes
// (`header` first, its model, batch and shard fields and the batch's hash filled in here; renamed
// into place at the end); the progress on stderr when it is a terminal; notes and warnings of the
// inputs counted, the first of each shown. `scan` is scan_batch(batch.file).
BatchResult run_batch(PreparedRun& run, const InputArgs& in, const BatchArgs& batch,
                      const BatchScan& scan, ItemsHeader& header, const ScoreInput& score);

// One input's forward pass into `collector` beside a NonFiniteMonitor; appends forward's and the
// monitor's warnings (what a ScoreInput does with its own collector).
void forward_into(const PreparedRun& run, AttentionSink& collector,
                  std::vector<std::string>& warnings);

// heads --batch: run_batch with a HeadDetector per input. `settings`: what the items header records
// besides its own fields.
BatchResult run_heads_batch(PreparedRun& run, const InputArgs& in,
                            const DetectionOptions& detection, const BatchArgs& batch,
                            const BatchScan& scan, const std::string& settings);

// The tokens the patterns compare: the ids, or for hash-embedded tokens their text interned.
std::vector<int64_t> token_identities(const Sequence& seq);

}  // namespace attnviz::detail
