// The terminal view: a heatmap per selected head, and score / weight tables of the chosen head.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "attnviz/render/table.hpp"
#include "attnviz/render/terminal.hpp"
#include "attnviz/sinks/gather.hpp"

namespace attnviz {

enum class TableKind { none, scores, probs, both };

struct TerminalOptions {
  HeadSelection heatmaps;      // maps drawn as heatmaps
  HeadSelection tables;        // maps printed as tables
  bool draw_heatmaps = true;   // off for --format csv|json (stdout is data then)
  TableKind table = TableKind::probs;
  TableStyle table_style;
  HeatmapStyle heatmap_style;
  std::string model_name;
};

// Prints each map as soon as it is complete, so only one map is held at a time. JSON tables are
// collected and printed as one array at the end, so stdout is a single JSON document.
class TerminalSink : public AttentionSink {
 public:
  TerminalSink(std::ostream& out, TerminalOptions options) : out_(out), options_(std::move(options)) {}
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  void finish() override;

 private:
  void print_tables(const GatheredMap& map);
  std::ostream& out_;
  TerminalOptions options_;
  std::unique_ptr<GatheredMap> current_;
  std::vector<std::string> json_tables_;
};

}  // namespace attnviz
