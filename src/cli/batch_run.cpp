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
#include "attnviz/batch/merge.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/event/sink_list.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "batch_input.hpp"

namespace attnviz::detail {

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

}  // namespace attnviz::detail
