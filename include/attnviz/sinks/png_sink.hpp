// --png DIR: a labelled figure per selected head, a layer × head overview grid per (stack, site),
// and a mask figure per distinct mask; rendered and written by a pool of threads.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/event/panel.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/staged_dir.hpp"
#include "attnviz/render/colour_scale.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/figure_writer.hpp"
#include "attnviz/render/pooled_map.hpp"

namespace attnviz {

// The memory the figures of maps with n_tokens per side take while drawn by `threads` writers, in
// bytes (labels and margins left out: a lower bound; measured ~25 bytes per cell for one figure):
// the map being pooled (float max and sum per cell), the 2 × threads figures queued (their cells
// and mask) and the `threads` being drawn (the canvas's RGB pixels at the figure's dpi, the image
// of the cells its drawing records, the PNG's filtered rows, and their cells).
uint64_t figure_memory(int64_t n_tokens, int max_pixels, const FigureFile& file, int threads);
// Figures that would need more than this are drawn by fewer writers, and refused before the run
// when one writer alone would need more (2 GiB).
inline constexpr uint64_t k_max_figure_memory = uint64_t{2} << 30;

struct PngOptions {
  HeadSelection selection;
  FigureStyle style;  // colour map, fonts (vmin / vmax and log are set per map)
  ColourScale colour_scale = ColourScale::auto_scale;
  bool shared_scale = false;  // --scale shared: every map on [0, 1]; per-head: [0, head max]
  PoolMode pool = PoolMode::max;
  int max_pixels = 2048;  // maps with more tokens per side are pooled to this many cells
  bool raw = false;       // also {map}.head{h}.raw.png: one pixel block per cell, no text
  std::string model_name;
  int threads = 0;            // writer pool size; 0 = hardware_concurrency
  std::vector<HeadId> panel;  // --panel: these heads side by side in panel.png (selected or not)
  FigureFile file;            // --figure-format, --dpi: the figures' format (raw images stay PNG)
};

// Files (written into a staging folder that finish() moves into DIR, so an interrupted run leaves
// no partial set; see io/staged_dir.hpp), each .png, or .svg / .pdf under --figure-format:
//   {map}.head{h}.png      the labelled figure (layer0.self.head3.png,
//   decoder.layer1.cross.head0.png) {map}.head{h}.raw.png  with --png-raw (a PNG in every format)
//   {stack.}{site}.grid.png  the overview grid at the end (self.grid.png, encoder.self.grid.png)
//   panel.png              with --panel: the chosen heads side by side, one colour bar
//   {map}.mask.png         the mask, at the first map of each (stack, site) using a new mask
//                          (layer0.self.mask.png); none for an all-allowed mask
// Memory: one pooled map (≤ max_pixels² cells) in progress, at most 2 × threads queued figures,
// and thumbnails of ≤ 96² cells for the grids.
class PngSink : public AttentionSink {
 public:
  // Refuses (usage Error naming --max-pixels) options whose figures of n_tokens per side would need
  // more than k_max_figure_memory, before any folder is made.
  PngSink(std::filesystem::path dir, PngOptions options, int64_t n_tokens = 0);
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  void finish() override;
  const std::vector<std::filesystem::path>& written() const { return written_; }

 private:
  // What the mask decides for every head under it, computed once per (mask, grid) and shared.
  struct Counts {
    std::shared_ptr<const Mask> mask;
    PoolGrid grid;
    std::shared_ptr<const CountMatrix> counts;  // allowed pairs per cell
    std::shared_ptr<const MaskMatrix> allowed;  // counts > 0
    Eigen::Index n_allowed = 0;                 // cells with an allowed pair
    int thumb_factor = 1;                       // the grid thumbnail's further pooling
    std::shared_ptr<const CountMatrix> thumb_counts;
    std::shared_ptr<const MaskMatrix> thumb_allowed;
  };
  const Counts& counts_for(const MapInfo& info, const PoolGrid& grid);
  void write_mask_figure(const MapInfo& info, const PoolGrid& grid);
  // A figure `stem` + the format's extension inside the folder, drawn and encoded by the pool.
  void submit(const std::string& stem, std::function<Canvas()> draw);
  void submit_file(const std::string& name, std::function<std::string()> render);  // any bytes
  void write_panel();  // panel.png from panel_maps_, on one colour scale

  std::filesystem::path dir_;
  PngOptions options_;
  std::optional<PooledMap> current_;
  Counts counts_;
  std::map<std::string, std::shared_ptr<const Mask>>
      mask_written_;                                     // "{stack.}{site}" → last mask drawn
  std::map<std::string, std::vector<Thumbnail>> grids_;  // "{stack.}{site}" → thumbnails
  std::map<std::string, bool>
      grid_log_;                   // per grid: log when its first map is drawn on a log scale
  bool current_selected_ = false;  // the map in progress gets its own figure (else: panel only)
  int current_panel_ = -1;         // its index in options_.panel, or -1
  std::vector<std::optional<PanelMap>> panel_maps_;  // pooled as drawn, in --panel's order
  bool panel_log_ = true;                            // every panel map chose the log scale
  std::vector<std::string> panel_what_;  // each panel map's mask, size and pooling, for the caption
  std::vector<std::filesystem::path> written_;  // final paths, in DIR
  std::unique_ptr<StagedDir> staged_;     // figures are written here, moved into DIR by finish()
  std::unique_ptr<FigureWriter> writer_;  // last: destroyed (joined) first
};

}  // namespace attnviz
