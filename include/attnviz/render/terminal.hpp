// Terminal capabilities and heatmaps drawn with half blocks: two pixels per character cell,
// '▀' with foreground = upper pixel and background = lower pixel.
#pragma once

#include <string>
#include <vector>

#include "attnviz/compute/mask.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/render/colormap.hpp"

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

}  // namespace attnviz
