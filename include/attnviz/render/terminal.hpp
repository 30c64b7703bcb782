// Terminal capabilities and heatmaps drawn with half blocks: two pixels per character cell,
// '▀' with foreground = upper pixel and background = lower pixel; one map, or heads side by side.
#pragma once

#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/pooled_map.hpp"

namespace attnviz {

enum class ColorMode { truecolor, ansi256, none };
enum class ColorChoice { auto_, always, never };

// never → none. auto: NO_COLOR set and non-empty (no-color.org), TERM=dumb, or stdout not a TTY →
// none. Otherwise (always, as no-color.org lets a command-line flag override NO_COLOR; or auto on
// a colour terminal): COLORTERM=truecolor|24bit → truecolor, else ansi256.
ColorMode detect_color_mode(ColorChoice choice, bool stdout_is_tty);
// $COLUMNS if a positive integer, else the width of the TTY on stdout (ioctl TIOCGWINSZ), else 80.
int terminal_width();
// The xterm-256 palette index nearest to c (squared RGB distance) among the 6×6×6 cube (16–231)
// and the grey ramp (232–255); the 16 system colours are skipped as terminals theme them.
int ansi256_index(Rgb c);

struct HeatmapStyle {
  ColorMode color = ColorMode::none;
  ColormapId cmap = ColormapId::viridis;
  int width = 80;     // total columns available, labels included
  float vmin = 0.0f;  // values map to [vmin, vmax] → colour map [0, 1]
  float vmax = 1.0f;
  bool non_finite = false;  // some cell is NaN or ±inf: the legend explains its mark
};

// A heatmap of `values` (rows = queries, cols = keys): a title line; the map with query labels
// (≤ 12 columns, … when cut) down the left side; a ruler of key indices when a key is ≥ 2 columns
// wide; "keys: 0 The · 1 cat · …" relating columns to tokens (when col_labels is non-empty); a
// legend line with the value range. Each key is cw ∈ [1, 4] columns wide; maps wider than `width`
// are max-pooled over p × p blocks (keys and queries alike). Colour: each query is cw half-block
// pixel rows, so cells are square; masked cells mid-grey. ColorMode::none: one line per query,
// cw characters of the ramp " .:-=+*#%@" per key, masked cells '/'. No line exceeds `width`
// (usage Error below 8). Empty label lists mean indices 0, 1, ….
std::string render_heatmap(const std::string& title, const Matrix& values, const Mask& mask,
                           const std::vector<std::string>& row_labels,
                           const std::vector<std::string>& col_labels, const HeatmapStyle& style);

// Small multiples: the heads of one (stack, layer, site) side by side at one colour scale.
// Query labels (L = min(widest, 12, width / 3) columns, … when cut) once on the left, one space,
// then panels 2 columns apart, each titled above its map. Panels per row: as many as fit when each
// is at least m0 = max(min(n_key, 16), widest title) columns wide (at most width - L - 1), then
// balanced over the rows of panels they need; M = the columns each panel of a row may take. Maps
// are max-pooled p × p with p = ceil(max(n_query, n_key) / M) (PoolGrid), so a panel holds at most
// M × M cells however long the input; unpooled keys get cw = clamp(M / n_key, 1, 4) columns.
struct MultiplesPlan {
  int label_columns = 0;   // L
  int panels_per_row = 1;  // the last row of panels may hold fewer
  int panel_columns = 1;   // M
  int cell_columns = 1;    // cw: characters per key (and pixel rows per query in colour)
  PoolGrid grid;           // every panel's cells
};
inline constexpr int k_panel_gap = 2;

// The layout of titles.size() panels of n_query × n_key maps in `width` columns (usage Error
// below 8 columns, Error for an empty map or no panels). Empty row_labels mean 0, 1, ….
MultiplesPlan plan_multiples(int n_query, int n_key, const std::vector<std::string>& titles,
                             const std::vector<std::string>& row_labels, int width);

// One head of a small-multiples view: its title ("head 3") and its weights pooled on plan.grid.
struct TerminalPanel {
  std::string title;
  PooledMap map;
};

// A title line; per row of panels: the panel titles, the maps (a query label on the line where its
// pooled row starts; ASCII: one line per pooled query, colour: two pixel rows per line, a whole
// line per pooled query when keys are one column wide so that every query is labelled), a key
// ruler under each panel when keys are ≥ 2 columns wide, and a blank line between rows of panels;
// then the key list and one legend for style's [vmin, vmax]. Masked cells (no allowed pair in
// the cell) are '/' or grey. No line exceeds style.width; trailing padding is trimmed.
std::string render_multiples(const std::string& title, const MultiplesPlan& plan,
                             const std::vector<TerminalPanel>& panels, const Mask& mask,
                             const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels, const HeatmapStyle& style);

}  // namespace attnviz
