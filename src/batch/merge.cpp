// Merging a batch's shards: their --items files read in turn, every input once, in order.
#include "attnviz/batch/merge.hpp"

#include <fmt/format.h>

#include <fstream>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"

namespace attnviz {

std::string pooled_text(const std::string& file, int64_t total) {
  return fmt::format("batch {}: {} inputs, mean over inputs", file, total);
}

DetectionOptions detection_of(const ItemsHeader& h) {
  DetectionOptions detection;
  for (const auto& name : h.patterns)
    detection.patterns.push_back(PatternSpec{DetectionPattern::user, name, nullptr});
  detection.measure = parse_error_measure(h.measure);
  detection.exclude_bos = h.exclude_bos;
  detection.exclude_current = h.exclude_current;
  return detection;
}

BatchResult merge_items(const std::vector<std::string>& files, ItemsHeader& header) {
  struct Shard {
    std::string file;
    std::ifstream in;
    ItemsHeader header;
    int64_t line = 1;
  };
  std::vector<Shard> shards;
  for (const auto& f : files) {
    Shard s{f, std::ifstream(f), {}, 1};
    if (!s.in) throw Error(fmt::format("{}: cannot open", f));
    s.header = read_header(s.in, f);
    shards.push_back(std::move(s));
  }
  const ItemsHeader& h = shards.front().header;
  if (static_cast<size_t>(h.shards) != shards.size()) {
    throw usage_error(fmt::format(
        "{} is one of {} shards, but {} given: merge takes every shard's --items file once",
        shards.front().file, h.shards, count_of(static_cast<long long>(shards.size()), "file")));
  }
  std::vector<int> file_of(static_cast<size_t>(h.shards), -1);
  for (size_t k = 0; k < shards.size(); ++k) {
    const ItemsHeader& o = shards[k].header;
    if (o.command != h.command || o.model != h.model || o.batch != h.batch ||
        o.items_total != h.items_total || o.shards != h.shards || o.patterns != h.patterns ||
        o.measure != h.measure || o.exclude_bos != h.exclude_bos ||
        o.exclude_current != h.exclude_current || o.settings != h.settings) {
      throw usage_error(fmt::format(
          "{} and {} are not shards of one run: their headers differ (model, batch file, shards, "
          "patterns, measure or settings)",
          shards[0].file, shards[k].file));
    }
    int& slot = file_of[static_cast<size_t>(o.shard)];
    if (slot >= 0)
      throw usage_error(fmt::format("{} and {} are both shard {}/{}",
                                    shards[static_cast<size_t>(slot)].file, shards[k].file, o.shard,
                                    o.shards));
    slot = static_cast<int>(k);
  }
  for (int k = 0; k < h.shards; ++k) {
    if (file_of[static_cast<size_t>(k)] < 0) {
      throw usage_error(
          fmt::format("shard {}/{} of {} is missing: merge takes every shard's --items file", k,
                      h.shards, h.batch));
    }
  }
  // Input i is in shard i mod N, whose lines are in input order: reading the shards in turn gives
  // every input in order, one line in memory at a time.
  ScoreAggregate pooled(h.command == "stats");
  for (int64_t i = 0; i < h.items_total; ++i) {
    Shard& s = shards[static_cast<size_t>(file_of[static_cast<size_t>(i % h.shards)])];
    const auto item = read_item(s.in, s.file, s.line, h.patterns.size());
    if (!item)
      throw Error(fmt::format("{}: ends before input {} (of {}); was its run interrupted?", s.file,
                              i, h.items_total));
    if (item->index != i)
      throw Error(fmt::format("{} line {}: input {}, expected {}", s.file, s.line, item->index, i));
    pooled.add(item->heads);
  }
  for (auto& s : shards) {
    if (read_item(s.in, s.file, s.line, h.patterns.size()))
      throw Error(fmt::format("{} line {}: more inputs than the header's {}", s.file, s.line,
                              h.items_total));
  }
  header = h;
  return BatchResult{pooled.summary(), pooled_text(h.batch, h.items_total)};
}

}  // namespace attnviz
