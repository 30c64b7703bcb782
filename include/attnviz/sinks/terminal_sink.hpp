// The terminal view: the selected heads of each layer side by side (or one heatmap for --head),
// and score / weight tables of the chosen head.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "attnviz/event/gather.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/render/terminal.hpp"

namespace attnviz {

enum class TableKind { none, scores, probs, both };

struct TerminalOptions {
  HeadSelection heatmaps;     // maps drawn as heatmaps
  HeadSelection tables;       // maps printed as tables
  bool draw_heatmaps = true;  // off for --format csv|json (stdout is data then)
  TableKind table = TableKind::probs;
  TableStyle table_style;
  HeatmapStyle heatmap_style;
  std::string model_name;
};

// With one head selected (--head, or a one-head model) each map is printed as one heatmap as soon
// as it ends. Otherwise the heads of a (stack, layer, site) are drawn side by side once its last
// head ends: each head is max-pooled to the panel size as its blocks arrive, so the sink holds at
// most one site's panels (O(heads × panel cells), never N × N). Tables of a map follow the
// heatmaps of its site. CSV and JSON tables are streamed row block by row block (any N); text and
// Markdown tables (and JSON with --table both) over k_max_table_cells are refused (usage error).
// Gathered JSON tables are collected and printed as one array at the end, so stdout
// is a single JSON document.
class TerminalSink : public AttentionSink {
 public:
  TerminalSink(std::ostream& out, TerminalOptions options)
      : out_(out), options_(std::move(options)) {}
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  void finish() override;
  // What the view could not honour (a table column wider than the width), for stderr.
  const std::vector<std::string>& notes() const { return notes_; }
  // Whether finish() has printed (or will print) a JSON array of tables.
  bool printed_json() const { return json_streamed_ > 0 || !json_tables_.empty(); }

 private:
  // The heads of one (stack, layer, site) waiting to be drawn side by side.
  struct PanelGroup {
    MapInfo info;  // of the first head: sizes, mask and labels shared by the site's heads
    MultiplesPlan plan;
    std::vector<TerminalPanel> panels;
  };

  bool single_heatmap(const MapInfo& info) const;
  void check_table_size(const MapInfo& info) const;
  void add_panel(const MapInfo& info);
  void flush_group();
  std::string tables_text(const GatheredMap& map);
  std::string table_title(const MapInfo& info, TableKind kind) const;
  std::ostream& out_;
  TerminalOptions options_;
  std::unique_ptr<GatheredMap> current_;  // the whole map, only for a table or a single heatmap
  bool stream_ = false;      // the current map's CSV / JSON table is written as its blocks arrive
  int json_streamed_ = 0;    // JSON tables streamed so far (the array opens before the first)
  bool panel_open_ = false;  // the current map is pooled into group_'s last panel
  std::optional<PanelGroup> group_;
  std::string pending_tables_;  // tables printed after their site's heatmaps
  std::vector<std::string> json_tables_;
  std::vector<std::string> notes_;
};

}  // namespace attnviz
