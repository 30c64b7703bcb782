// The per-input file of `heads --batch … --items FILE` and `stats --batch … --items FILE` (JSON
// lines), which `attnviz merge` reads back: a header line with what every line was computed with,
// then one line per input in order.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"

namespace attnviz {

// What a batch was run with; two shards merge only when these agree (but `shard`).
struct ItemsHeader {
  std::string command =
      "heads";               // what wrote it: "heads" (detection scores) or "stats" (stats figures)
  std::string model, batch;  // the model's name, the --batch file as given
  int64_t items_total = 0;   // inputs in the batch file
  int shard = 0, shards = 1;          // --shard K/N
  std::vector<std::string> patterns;  // heads: the patterns; stats: the figures' names
  std::string measure;                // heads: "mul" or "abs"; stats: ""
  bool exclude_bos = false, exclude_current = false;
  // What else decides the numbers: the masks, scale, selection, source and tokenizer flags, the
  // model's configuration line, and the batch file's size and FNV-1a hash. Shards merge only when
  // equal.
  std::string settings;
};

std::string header_line(const ItemsHeader& h);
// One input's scores: its index in the batch, its "id" (JSON, or null), its tokens, every head.
std::string item_line(int64_t index, const std::string& id_json,
                      const std::vector<HeadScores>& heads);

// Read back, each line checked (an Error names the file, the line and the field).
ItemsHeader read_header(std::istream& in, const std::string& file);
struct ItemLine {
  int64_t index = 0;
  std::vector<HeadScores> heads;
};
std::optional<ItemLine> read_item(std::istream& in, const std::string& file, int64_t& line,
                                  size_t n_patterns);

}  // namespace attnviz
