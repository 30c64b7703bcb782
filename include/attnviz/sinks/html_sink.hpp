// --html FILE: one self-contained, offline viewer page of the selected maps: the model view (layer
// × head thumbnails), a zoomable heatmap with tooltips, the head view (two token columns, lines
// weighted by attention) and the stats table. The page's script and style are compiled in
// (src/sinks/html/); the maps go in as zlib-compressed float16 arrays, base64 in the page, inflated
// by the browser's own DecompressionStream: no URL is ever loaded. A vision model's run adds the
// image pane: the picture, each patch tinted by the hovered patch's attention, per head.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/image_file.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/pooled_map.hpp"
#include "attnviz/sinks/png_sink.hpp"

namespace attnviz {

// The picture a vision model read and where its patches are among the tokens: the page's image
// pane (hover a patch: its attention over the picture, per head of the layer).
struct HtmlPicture {
  std::shared_ptr<const RgbImage> image;
  int first = 0, rows = 0, cols = 0, patch = 0;  // as OverlayGrid
};

struct HtmlOptions {
  HeadSelection selection;
  std::string model_name;
  std::string input_note;  // what ran, for the page's header ("49 tokens of text")
  ColormapId cmap = ColormapId::viridis;
  ColourScale colour_scale =
      ColourScale::auto_scale;  // the scale a map opens on (log_scale_for, as --png)
  int max_cells = 512;  // --html-cells: maps with more tokens per side are stored mean/max pooled
  int top_k = 8;        // pooled maps: each query's K strongest keys, exactly, for the head view
  StatsOptions stats;   // the stats table's saturation threshold (selection is set from above)
  std::optional<HtmlPicture> picture;  // a vision model's image: the image pane
};

namespace detail {
struct MapRecord;  // one stored map (src/sinks/html_page.hpp)
}

// What is kept per map: its planes compressed as soon as the map ends (memory: one map's planes in
// progress plus every map's compressed bytes, at most max_cells² cells each).
class HtmlSink : public AttentionSink {
 public:
  HtmlSink(std::filesystem::path file, HtmlOptions options);
  ~HtmlSink() override;
  void begin_map(const MapInfo& info) override;
  void queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  void finish() override;  // writes the page atomically
  // Warnings for stderr after finish() (a page too large for browsers).
  const std::vector<std::string>& notes() const { return notes_; }
  // After finish(): the maps the page holds (0 when no page was written: no map was selected).
  size_t maps_written() const;

 private:
  struct Current;  // the map in progress
  // A mask's allowed pairs per cell of a grid, computed once and shared by the heads under it; its
  // 0/1 plane goes into the page once, as blob `index`.
  struct MaskEntry {
    std::shared_ptr<const Mask> mask;
    PoolGrid grid;
    std::shared_ptr<const CountMatrix> counts;
    int index = -1;
  };
  MaskEntry& mask_entry(const std::shared_ptr<const Mask>& mask, const PoolGrid& grid);
  int labels_index(const std::shared_ptr<const Labels>& labels);

  std::filesystem::path file_;
  uint64_t bytes_ = 0;                     // the page's size, once written
  std::unique_ptr<AtomicFileWriter> out_;  // the page's temp file, renamed into place by finish()
  HtmlOptions options_;
  StatsCollector stats_;
  std::unique_ptr<Current> current_;
  std::vector<detail::MapRecord> maps_;
  std::vector<std::shared_ptr<const Labels>> labels_;  // distinct label lists, by pointer
  std::deque<MaskEntry> masks_;                        // distinct (mask, grid); stable references
  std::vector<std::string> mask_blobs_, mask_names_;
  std::vector<std::string> notes_;
};

}  // namespace attnviz
