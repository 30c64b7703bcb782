// Internal parts shared by the terminal views (one heatmap, small multiples): pooled cells drawn as
// ASCII ramp characters or half-block colour lines, query labels, key rulers, key lists, legends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/render/terminal.hpp"

namespace attnviz::detail {

inline constexpr int k_max_label_columns = 12;
inline constexpr int k_min_width = 8;

// One drawn cell: its colour-map position, or masked when every source cell is.
struct TermCell {
  float t = 0.0f;
  bool masked = true;
  bool non_finite = false;  // NaN or ±inf: drawn '!' / magenta, never as a colour of the map
};

// A pooled map ready to draw: rows × cols cells, cell_columns characters per key (and, in
// colour, cell_columns half-block pixel rows per query, so cells are square).
struct CellGrid {
  int rows = 0;
  int cols = 0;
  int cell_columns = 1;
  // Colour: half-block pixel rows per query (0: cell_columns, square cells). 2 draws each query
  // on a text line of its own, so every query line can carry its label.
  int row_pixels = 0;
  std::vector<TermCell> cells;  // row-major [rows, cols]
  int pixel_rows() const { return row_pixels > 0 ? row_pixels : cell_columns; }
  const TermCell& at(int row, int col) const {
    return cells[static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col)];
  }
};

// ASCII: pooled query row q as cell_columns ramp characters per key, '/' for masked cells.
std::string ascii_row(const CellGrid& grid, int q);
// Colour: text lines of the map ((rows · cell_columns + 1) / 2, two pixel rows per line).
int colour_line_count(const CellGrid& grid);
// Colour: text line y (pixel rows 2y under the ▀ foreground, 2y + 1 as background), ending in a
// reset. Escapes are written only when the colours change along the line.
std::string colour_row(const CellGrid& grid, int y, const HeatmapStyle& style);
// Colour: the pooled query row whose first pixel row is on text line y (labelled there), if any.
std::optional<int> query_starting_on_line(const CellGrid& grid, int y);

// Query labels made printable, truncated with … and padded to `columns`.
std::vector<std::string> prepare_row_labels(const std::vector<std::string>& labels, int columns);
// The widest printable label (display columns).
int widest_label(const std::vector<std::string>& labels);
// Key indices under a map of cell_columns ≥ 2 (each index when it fits its cell with a space,
// else every 5th), exactly cols · cell_columns wide; "" when keys are one column wide.
std::string key_ruler(const CellGrid& grid);
// "keys: 0 The · 1 cat · …" (nothing when col_labels is empty), cut to width.
void append_key_list(std::string& out, const std::vector<std::string>& col_labels, int width);
// The value range: the ASCII ramp, or a gradient of colour blocks, and the masked cell.
void append_legend(std::string& out, const HeatmapStyle& style);

// Maps pooled p × p to fit (pool > 1), said as the figures' captions say it:
// the row labels, each pooled row's query range ("0–3") at its first query and "" elsewhere, since
// one token's label would stand for several;
std::vector<std::string> pooled_row_labels(int64_t n_query, int pool);
// the ruler under a map `cols` cells wide: the first key of every 10th column ("0         40");
std::string pooled_key_ruler(int cols, int pool);
// the line under the title: "p×p tokens per cell, their largest weight (max-pooled to fit; …", cut
// to width, with its newline.
std::string pooled_note(int pool, int width);

// text with the trailing spaces removed (padding of the last panel on a line).
std::string trim_right(std::string text);

}  // namespace attnviz::detail
