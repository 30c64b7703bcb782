// `attnviz merge`: the --items files of a batch's shards pooled into the figures one run of the
// whole batch gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/batch/items.hpp"

namespace attnviz {

struct BatchResult {
  std::vector<HeadScores> summary;  // per head: mean, spread over the inputs
  std::string input;                // what was pooled, for the report's title
};

// "batch FILE: N inputs, mean over inputs": what a whole batch's figures pool, for titles.
std::string pooled_text(const std::string& file, int64_t total);

// The --items files of every shard of one batch, pooled in input order: the figures one run of the
// whole batch gives. `header` is set to the files' (shared) header.
BatchResult merge_items(const std::vector<std::string>& files, ItemsHeader& header);

// The detection options a heads items header names (patterns by name, measure, exclusions).
DetectionOptions detection_of(const ItemsHeader& header);

}  // namespace attnviz
