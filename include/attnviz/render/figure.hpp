// Figures for papers: a labelled heatmap per head (title, token labels, colour bar, hatched masked
// cells), a layer × head grid of thumbnails of a whole model, and mask matrices. Each is returned
// as the Canvas it was drawn on: its image for PNG, its drawing for SVG and PDF (figure_file.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/render/canvas.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/png.hpp"

namespace attnviz {

// A log scale with vmin ≤ 0 spans this factor below vmax: four decades.
inline constexpr float k_log_floor = 1e-4f;

// How values become colours, and the fonts of the text.
struct FigureStyle {
  ColormapId cmap = ColormapId::viridis;
  float vmin = 0.0f;  // colour map [0, 1] spans [vmin, vmax]
  float vmax = 1.0f;
  // log10 colour scale over [vmin, vmax], where a vmin ≤ 0 becomes vmax · k_log_floor
  // (probabilities are often exactly 0); smaller values take the lowest colour.
  bool log = false;
  bool cell_values = true;  // print each value in its cell when the cells are large enough
  std::shared_ptr<const FontSet> fonts = nullptr;  // nullptr = FontSet::default_set()
  CanvasScale scale{};  // image pixels per unit (--dpi), text size (--font-size)
  // --size in units: per-head, mask and panel figures take this size, their cells as large as fits
  // (0: each figure its natural size).
  int fit_width = 0, fit_height = 0;
};

// The CanvasScale::text that draws figures' token labels and ticks at an em size of `points` (the
// default is about 7.4 pt in DejaVu Sans; titles and captions keep their proportion to it).
float text_scale_for_points(double points, const FontSet& fonts);

// value → position on the colour map under style (linear or log), clamped to [0, 1].
float figure_position(float value, const FigureStyle& style);

// Masked cells: grey stripes on light grey, a pattern no colour map contains.
inline constexpr Rgb k_hatch_background{225, 225, 225};
inline constexpr Rgb k_hatch_stripe{150, 150, 150};

// One map as drawn: cells (possibly pooled) plus the token labels of the original axes.
struct FigureMap {
  Matrix values;                          // [cells_q, cells_k]
  MaskMatrix allowed;                     // [cells_q, cells_k]: 0 = every pair in the cell masked
  int pool = 1;                           // tokens per cell along each axis
  std::vector<std::string> query_labels;  // one per token (n_query); empty = indices
  std::vector<std::string> key_labels;    // one per token (n_key); empty = indices
  int n_query = 0, n_key = 0;             // tokens
  std::string row_axis = "queries",
              col_axis = "keys";  // the axes' names ("positions", "dimensions")
  // count_non_finite(values, allowed) when the caller has counted it already (a pass over every
  // cell, which the figure otherwise makes itself); -1 = not counted.
  Eigen::Index non_finite = -1;
};

// Allowed cells holding NaN or ±inf (drawn magenta, counted in captions).
Eigen::Index count_non_finite(const Matrix& values, const MaskMatrix& allowed);
// map.non_finite, counted when the caller left it at -1.
Eigen::Index count_non_finite(const FigureMap& map);

// Where the parts of a heatmap figure are, in pixels (for tests and for callers adding marks).
struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};
struct HeatmapLayout {
  Rect title;     // the title line
  Rect map;       // the cells: cell (i, j) is [map.x + j·cell, +cell) × [map.y + i·cell, +cell)
  int cell = 1;   // pixels per cell side
  Rect colorbar;  // top = position 1, bottom = position 0
  Rect row_labels, col_labels;
  int width = 0, height = 0;
  std::vector<std::string> caption_lines;  // the caption wrapped between its " · " parts
  std::vector<std::string>
      title_lines;  // the title: one line, or under --size wrapped as the caption
};

// The layout heatmap_figure uses for this map (depends on the fonts through label widths).
HeatmapLayout heatmap_figure_layout(const std::string& title, const FigureMap& map,
                                    const FigureStyle& style, const std::string& caption = "");
// The per-head figure: title, caption (the second line: mask, scale, pooling), query labels down
// the left, key labels rotated above the map (thinned to one per line height, then prefixed by
// their index), the colour bar with ticks on the right, masked cells hatched.
Canvas heatmap_figure(const std::string& title, const std::string& caption, const FigureMap& map,
                      const FigureStyle& style);

// One head of a panel figure: its name over the map ("L3H5") and the map as drawn.
struct PanelMap {
  std::string name;
  FigureMap map;
};
// Chosen heads side by side on one colour scale (style's vmin, vmax and log) with one colour bar,
// as a paper shows them: one cell size for all, key labels over each map, query labels left of the
// first map and of any map whose queries differ from the one before it; title and caption above.
Canvas panel_figure(const std::string& title, const std::string& caption,
                    const std::vector<PanelMap>& panels, const FigureStyle& style);

// A vertical colour bar in rect (top = vmax) with ticks and values to its right; returns the
// x just past the tick labels. Public so other figures (charts of statistics) share it.
int draw_colorbar(Canvas& canvas, const Rect& rect, const FigureStyle& style);

// One thumbnail of the overview grid: a small map (already pooled) and its own style range.
struct Thumbnail {
  int layer = 0, head = 0;
  Matrix values;       // [cells_q, cells_k]
  MaskMatrix allowed;  // [cells_q, cells_k]
  float vmin = 0.0f, vmax = 1.0f;
};
// The layer × head grid ("model view" as one image): rows = layers, columns = heads, labelled;
// one colour bar when all thumbnails share a range, else a bar labelled "per head".
Canvas grid_figure(const std::string& title, const std::vector<Thumbnail>& thumbs,
                   const FigureStyle& style, int thumb_px = 96);

// The mask as a matrix with the heatmap's axes and labels (axes.values is unused): allowed cells
// dark blue, masked cells hatched; a pooled cell with only some pairs allowed is shaded by its
// allowed fraction [cells_q, cells_k] (1 = all allowed).
Canvas mask_figure(const std::string& title, const std::string& caption, const FigureMap& axes,
                   const Matrix& allowed_fraction, const FigureStyle& style);

}  // namespace attnviz
