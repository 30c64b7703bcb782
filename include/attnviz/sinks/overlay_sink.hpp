// --overlay DIR|-: for a vision model's image, each selected head's attention from one query over
// the patch grid, tinted onto the picture: a figure per head, or the terminal's half-block form.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/image_file.hpp"
#include "attnviz/io/staged_dir.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/overlay.hpp"

namespace attnviz {

// Whose row an overlay draws: one token's (by index), or the mean of the patches' rows (SigLIP has
// no class token).
struct OverlayQuery {
  std::optional<int> token;  // nullopt: the mean over the patch rows
  std::string name;          // "CLS", "p(5,7)", "mean of patches"
};

// Where the patches are among the tokens: rows × cols from token `first`, `patch` pixels square.
struct OverlayGrid {
  int first = 0, rows = 0, cols = 0, patch = 0;
};

struct OverlayOptions {
  std::filesystem::path dir;  // "" : the terminal (out)
  std::ostream* out = nullptr;
  bool colour = true;  // the terminal's 24-bit colour
  int columns = 80;
  HeadSelection selection;
  FigureStyle style;
  FigureFile file;
  std::string model_name;
  std::shared_ptr<const RgbImage> picture;
  OverlayGrid grid;
  OverlayQuery query;
  std::vector<HeadId> panel;  // --panel: these heads side by side (selected or not)
};

// Files (staged, committed by finish()): {map}.head{h}.overlay{.png|.svg|.pdf}, and for a derived
// map (a rollout) {map}.overlay; with more than one head drawn, overlays{.png|…}, their layer ×
// head grid; with --panel, panel.overlay{.png|…}, the chosen heads in a row. Memory: one row per
// head of the map in progress, and each drawn head's patch weights (layers × heads × patches).
class OverlaySink : public AttentionSink {
 public:
  explicit OverlaySink(OverlayOptions options);
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  void finish() override;
  int written() const { return written_; }

 private:
  struct Drawn {
    HeadId id;
    OverlayFigure figure;  // its image is the picture
  };
  OverlayFigure figure_of(const MapInfo& info) const;
  void write_grid();
  void write_panel();
  OverlayOptions o_;
  std::optional<StagedDir> staged_;
  bool wanted_ = false;
  bool selected_ = false;     // the map in progress gets its own overlay (else: the panel only)
  int panel_index_ = -1;      // its index in o_.panel, or -1
  std::vector<Drawn> drawn_;  // for the grid, in the order drawn
  std::vector<std::optional<OverlayFigure>> panel_;  // in --panel's order
  std::vector<double> row_;  // the query's row (or the patch rows' sum) of the head in progress
  int rows_added_ = 0;
  int written_ = 0;
};

}  // namespace attnviz
