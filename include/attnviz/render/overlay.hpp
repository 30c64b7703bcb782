// Attention drawn on the image: one query's weights over a vision model's patch grid, each patch of
// the picture tinted by the weight it receives (DINO's and vit-explain's "where the model looks").
#pragma once

#include <string>
#include <vector>

#include "attnviz/io/image_file.hpp"
#include "attnviz/render/canvas.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/figure.hpp"

namespace attnviz {

struct OverlayFigure {
  const RgbImage* image = nullptr;  // what the model saw: at least cols·patch × rows·patch pixels
  int rows = 0, cols = 0, patch = 0;
  std::vector<float> weights;  // [rows · cols]: the query's weight on each patch, row by row
  std::string title;           // "m · layer 0 · self · head 3 · query CLS"
  std::string caption;         // the weight left on the prefix tokens: "CLS 0.12 · reg0 0.40"
};

// The colour-map position of each patch: weight / the largest patch weight (0 when all are 0), so
// the figure shows where this query looks among the patches, its scale on the colour bar.
std::vector<float> overlay_positions(const OverlayFigure& f);

// The picture tinted: pixel = (1 − ½t)·grey + ½t·cmap(t), t the patch's position, grey the
// pixel's luminance (ITU-R 601) dimmed to ¾ — untinted where a patch gets nothing, the colour map's
// where it gets the most. Pixels past the grid (an image not a whole number of patches) stay grey.
Image tinted_image(const OverlayFigure& f, ColormapId cmap);

// The figure: title, the tinted image (scaled up by a whole factor to about 320 units), a colour
// bar from 0 to the largest patch weight, the caption below.
Canvas overlay_figure(const OverlayFigure& f, const FigureStyle& style);

// Several overlays in one figure: a layer × head grid, or a --panel's chosen heads in a row. Each
// cell is its own overlay (its largest patch weight the colour map's top), the picture shrunk by a
// whole factor (box average) to at most about 128 units, or enlarged to about it; rows and columns
// labelled; a cell left out (a head not drawn) stays blank.
struct OverlayGridFigure {
  std::string title;
  std::string caption;
  std::vector<std::string> row_labels, col_labels;
  std::vector<const OverlayFigure*> cells;  // row_labels × col_labels, row by row; null: blank
};
Canvas overlay_grid_figure(const OverlayGridFigure& g, const FigureStyle& style);

// The terminal form: the tinted image in half blocks (▀, its top pixel the foreground, the bottom
// one the background, 24-bit colour), at most `columns` wide, the title above and caption below.
// Without colour, the patches as shades by position ("·.:-=+*#%@", a tenth each), two characters
// per patch when they fit in `columns`, else one.
std::string terminal_overlay(const OverlayFigure& f, ColormapId cmap, int columns, bool colour);

}  // namespace attnviz
