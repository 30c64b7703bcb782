// A batch of inputs (heads, stats), streamed: one input in memory at a time; and merge of its
// shards.
#include "batch_run.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/event/sink_list.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "batch_input.hpp"
#include "batch_items.hpp"

namespace attnviz::detail {

namespace {

std::string pooled_text(const std::string& file, int64_t total) {
  return fmt::format("batch {}: {} inputs, mean over inputs", file, total);
}

}  // namespace

std::vector<int64_t> token_identities(const Sequence& seq) {
  if (!seq.ids.empty()) return seq.ids;
  std::unordered_map<std::string, int64_t> interned;
  std::vector<int64_t> out;
  for (const auto& label : seq.labels) {
    out.push_back(interned.try_emplace(label, static_cast<int64_t>(interned.size())).first->second);
  }
  return out;
}

BatchResult run_batch(PreparedRun& run, const InputArgs& in, const BatchArgs& batch,
                      const BatchScan& scan, ItemsHeader& header, const ScoreInput& score) {
  const auto [shard, shards] = parse_shard(batch.shard);
  const int64_t total = scan.inputs;
  if (shards > total) {
    throw usage_error(
        fmt::format("--shard {}: {} shards of {} inputs leave some empty; give at most {} shards",
                    batch.shard, shards, total, total));
  }
  const int64_t mine = shard_size(total, shard, shards);
  header.model = run.model.name;
  header.batch = batch.file;
  header.items_total = total;
  header.shard = shard;
  header.shards = shards;
  header.settings += fmt::format(" | batch: {} inputs, fnv1a64 {:016x}", total, scan.hash);
  std::unique_ptr<AtomicFileWriter> items;
  if (!batch.items.empty()) {
    items = std::make_unique<AtomicFileWriter>(batch.items);
    items->write(header_line(header));
  }
  ScoreAggregate pooled(header.command == "stats");
  BatchNotes notes, warnings;
  BatchProgress progress(header.command, mine);
  for_each_batch_line(batch.file, [&](int64_t index, int64_t line, const std::string& text) {
    if (index % shards != shard) return;
    try {
      const auto j = nlohmann::json::parse(text);
      InputArgs item = in;
      item.target = batch_sequence(j);
      notes.add(line, prepare_inputs(run, item));
      std::vector<std::string> input_warnings;
      const std::vector<HeadScores> heads = score(run, input_warnings);
      warnings.add(line, input_warnings);
      pooled.add(heads);
      if (items) items->write(item_line(index, j.contains("id") ? j["id"].dump() : "null", heads));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{} line {}: not JSON: {}", batch.file, line, e.what()));
    } catch (const Error& e) {
      throw batch_line_error(batch.file, line, e);
    }
    progress.step(pooled.items());
  });
  if (items) items->commit();
  if (!notes_quiet()) notes.report(std::cerr, "note", mine);
  warnings.report(std::cerr, "warning", mine);
  BatchResult r{pooled.summary(), pooled_text(batch.file, total)};
  if (shards > 1)
    r.input = fmt::format("batch {}: shard {}/{}, {} of {} inputs, mean over them", batch.file,
                          shard, shards, mine, total);
  return r;
}

void forward_into(const PreparedRun& run, AttentionSink& collector,
                  std::vector<std::string>& warnings) {
  NonFiniteMonitor monitor;
  SinkList sinks;
  sinks.add(std::make_unique<ForwardingSink>(collector));
  sinks.add(std::make_unique<ForwardingSink>(monitor));
  const ForwardResult result = forward(run.model, run.inputs, run.options, &sinks);
  warnings.insert(warnings.end(), result.warnings.begin(), result.warnings.end());
  if (const std::string w = monitor.warnings(); !w.empty()) warnings.push_back(w);
}

BatchResult run_heads_batch(PreparedRun& run, const InputArgs& in,
                            const DetectionOptions& detection, const BatchArgs& batch,
                            const BatchScan& scan, const std::string& settings) {
  ItemsHeader header;
  header.command = "heads";
  for (const auto& p : detection.patterns) header.patterns.push_back(p.name);
  header.measure = detection.measure == ErrorMeasure::mul ? "mul" : "abs";
  header.exclude_bos = detection.exclude_bos;
  header.exclude_current = detection.exclude_current;
  header.settings = settings;
  return run_batch(run, in, batch, scan, header,
                   [&detection](const PreparedRun& r, std::vector<std::string>& warnings) {
                     DetectionOptions d = detection;
                     d.tokens = token_identities(r.inputs.target);
                     if (r.inputs.source) d.source_tokens = token_identities(*r.inputs.source);
                     HeadDetector detector(d);
                     forward_into(r, detector, warnings);
                     return detector.heads();
                   });
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

}  // namespace attnviz::detail
