// Terminal heatmaps: half-block colour pixels (▀, fg = upper pixel, bg = lower) or an ASCII ramp,
// max-pooled to fit the width, with query labels, a key ruler, a key list and a legend.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/terminal.hpp"
#include "attnviz/text/unicode.hpp"
#include "shapes.hpp"

namespace attnviz {
namespace {

constexpr std::string_view k_ramp = " .:-=+*#%@";  // value vmin → ' ', vmax → '@'
constexpr char k_masked_char = '/';                // never confused with a weight of 0 (' ')
constexpr Rgb k_masked_rgb{128, 128, 128};
constexpr std::string_view k_upper_half = "▀";
constexpr std::string_view k_full_block = "█";
constexpr std::string_view k_reset = "\x1b[0m";
constexpr std::string_view k_key_separator = " · ";
constexpr int k_max_label_columns = 12;
constexpr int k_max_cell_columns = 4;  // a 3×3 map should not fill the screen
constexpr int k_legend_cells = 20;
constexpr int k_min_width = 8;

// One cell of the pooled map: its colour-map position, or masked when every source cell is.
struct Cell {
  float t = 0.0f;
  bool masked = true;
};

// How the map is laid out: label column, pooling factor and character columns per key.
struct Layout {
  int label_columns = 0;  // L: query labels are padded to L, then one space
  int pool = 1;           // p × p source cells max-pool into one drawn cell
  int cell_columns = 1;   // cw: characters per key (and pixel rows per query in colour)
  int rows = 0;           // pooled query rows
  int cols = 0;           // pooled keys
};

Layout choose_layout(Eigen::Index n_query, Eigen::Index n_key, int widest_label, int width) {
  Layout lay;
  lay.label_columns = std::min({widest_label, k_max_label_columns, width / 3});
  const int available = width - lay.label_columns - 1;
  const auto n_key_int = static_cast<int>(n_key);
  lay.pool = (n_key_int + available - 1) / available;
  lay.cols = (n_key_int + lay.pool - 1) / lay.pool;
  lay.rows = static_cast<int>((n_query + lay.pool - 1) / lay.pool);
  lay.cell_columns = lay.pool == 1 ? std::clamp(available / n_key_int, 1, k_max_cell_columns) : 1;
  return lay;
}

// Max-pools p × p blocks of the allowed cells (a masked source cell never wins over a real one).
std::vector<Cell> pool_cells(const Matrix& values, const Mask& mask, const Layout& lay,
                             const HeatmapStyle& style) {
  std::vector<Cell> cells(static_cast<size_t>(lay.rows) * static_cast<size_t>(lay.cols));
  const Eigen::Index n_key = values.cols();
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < n_key; ++j) {
      if (!mask.allowed(i, j, n_key)) continue;
      Cell& cell = cells[static_cast<size_t>(i / lay.pool * lay.cols + j / lay.pool)];
      const float t = colormap_position(values(i, j), style.vmin, style.vmax);
      cell.t = cell.masked ? t : std::max(cell.t, t);
      cell.masked = false;
    }
  }
  return cells;
}

// Query labels made printable, truncated with … and padded to the label column.
std::vector<std::string> prepare_row_labels(const std::vector<std::string>& labels, int columns) {
  std::vector<std::string> out;
  for (const auto& label : labels) {
    out.push_back(pad_to_width(truncate_to_width(printable_text(label), columns), columns));
  }
  return out;
}

std::string colour_escape(ColorMode mode, bool foreground, std::optional<Rgb> c) {
  if (!c) return foreground ? "\x1b[39m" : "\x1b[49m";  // the terminal's default colour
  const int layer = foreground ? 38 : 48;
  if (mode == ColorMode::ansi256) return fmt::format("\x1b[{};5;{}m", layer, ansi256_index(*c));
  return fmt::format("\x1b[{};2;{};{};{}m", layer, c->r, c->g, c->b);
}

Rgb cell_colour(const Cell& cell, ColormapId cmap) {
  return cell.masked ? k_masked_rgb : colormap(cmap, cell.t);
}

// One text line of the colour map: pixel rows 2y (fg of ▀) and 2y + 1 (bg, absent past the end).
void append_colour_line(std::string& out, const std::vector<Cell>& cells, const Layout& lay, int y,
                        const HeatmapStyle& style) {
  const int n_pixel_rows = lay.rows * lay.cell_columns;
  const int upper_row = 2 * y / lay.cell_columns;
  const std::optional<int> lower_row =
      2 * y + 1 < n_pixel_rows ? std::optional<int>((2 * y + 1) / lay.cell_columns) : std::nullopt;
  std::string previous;
  for (int c = 0; c < lay.cols; ++c) {
    const Rgb upper = cell_colour(cells[static_cast<size_t>(upper_row * lay.cols + c)], style.cmap);
    std::optional<Rgb> lower;
    if (lower_row)
      lower = cell_colour(cells[static_cast<size_t>(*lower_row * lay.cols + c)], style.cmap);
    const std::string escape =
        colour_escape(style.color, true, upper) + colour_escape(style.color, false, lower);
    for (int k = 0; k < lay.cell_columns; ++k) {
      if (escape != previous) out += escape;  // only when the colours change along the line
      previous = escape;
      out += k_upper_half;
    }
  }
  out += k_reset;
}

void append_colour_map(std::string& out, const std::vector<Cell>& cells, const Layout& lay,
                       const std::vector<std::string>& labels, const HeatmapStyle& style) {
  const int cw = lay.cell_columns;
  const int n_lines = (lay.rows * cw + 1) / 2;
  const std::string blank(static_cast<size_t>(lay.label_columns), ' ');
  for (int y = 0; y < n_lines; ++y) {
    // The first pooled query row starting on this line (the upper one when two share it).
    const int q = (2 * y + cw - 1) / cw;
    const bool starts_here = q < lay.rows && q * cw / 2 == y;
    out += starts_here ? labels[static_cast<size_t>(q * lay.pool)] : blank;
    out += ' ';
    append_colour_line(out, cells, lay, y, style);
    out += '\n';
  }
}

void append_ascii_map(std::string& out, const std::vector<Cell>& cells, const Layout& lay,
                      const std::vector<std::string>& labels) {
  const auto last = static_cast<float>(k_ramp.size() - 1);
  for (int q = 0; q < lay.rows; ++q) {
    out += labels[static_cast<size_t>(q * lay.pool)];
    out += ' ';
    for (int c = 0; c < lay.cols; ++c) {
      const Cell& cell = cells[static_cast<size_t>(q * lay.cols + c)];
      const char ch =
          cell.masked ? k_masked_char : k_ramp[static_cast<size_t>(std::lround(cell.t * last))];
      out.append(static_cast<size_t>(lay.cell_columns), ch);
    }
    out += '\n';
  }
}

// Key indices under the map: each index when it fits its cell with a space, else every 5th.
void append_ruler(std::string& out, const Layout& lay) {
  if (lay.cell_columns < 2) return;
  const int digits = static_cast<int>(std::to_string(lay.cols - 1).size());
  const int step = lay.cell_columns > digits ? 1 : 5;
  std::string ruler(static_cast<size_t>(lay.cols * lay.cell_columns), ' ');
  for (int k = 0; k < lay.cols; k += step) {
    const std::string index = std::to_string(k);
    const auto at = static_cast<size_t>(k * lay.cell_columns);
    if (at + index.size() <= ruler.size()) ruler.replace(at, index.size(), index);
  }
  ruler.erase(ruler.find_last_not_of(' ') + 1);
  out += std::string(static_cast<size_t>(lay.label_columns + 1), ' ') + ruler + '\n';
}

// "keys: 0 The · 1 cat · …", so columns can be related to tokens.
void append_key_list(std::string& out, const std::vector<std::string>& col_labels, int width) {
  if (col_labels.empty()) return;
  std::string line = "keys: ";
  for (size_t k = 0; k < col_labels.size(); ++k) {
    if (k > 0) line += k_key_separator;
    line += fmt::format("{} {}", k, printable_text(col_labels[k]));
    if (display_width(line) > width) break;  // the rest would be cut anyway
  }
  out += truncate_to_width(line, width) + '\n';
}

void append_legend(std::string& out, const HeatmapStyle& style) {
  const std::string lo = fmt::format("{:.3f}", style.vmin), hi = fmt::format("{:.3f}", style.vmax);
  if (style.color == ColorMode::none) {
    out += truncate_to_width(fmt::format("{} [{}] {}  {} masked", lo, k_ramp, hi, k_masked_char),
                             style.width);
    out += '\n';
    return;
  }
  const std::string_view masked_note = " masked";
  // lo, space, gradient, space, hi, two spaces, a grey block, " masked".
  const int text_columns =
      display_width(lo) + display_width(hi) + 5 + static_cast<int>(masked_note.size());
  const int n_cells = std::min(k_legend_cells, style.width - text_columns);
  if (n_cells < 2) {
    out += truncate_to_width(fmt::format("{} .. {}", lo, hi), style.width) + '\n';
    return;
  }
  out += lo + ' ';
  for (int k = 0; k < n_cells; ++k) {
    const float t = static_cast<float>(k) / static_cast<float>(n_cells - 1);
    out += colour_escape(style.color, true, colormap(style.cmap, t));
    out += k_full_block;
  }
  out +=
      fmt::format("{} {}  {}{}{}{}\n", k_reset, hi, colour_escape(style.color, true, k_masked_rgb),
                  k_full_block, k_reset, masked_note);
}

}  // namespace

std::string render_heatmap(const std::string& title, const Matrix& values, const Mask& mask,
                           const std::vector<std::string>& row_labels,
                           const std::vector<std::string>& col_labels, const HeatmapStyle& style) {
  detail::check_map_shapes("heatmap", values, mask, row_labels, col_labels);
  if (style.width < k_min_width) {
    throw usage_error(fmt::format("terminal width {} is too narrow for a heatmap (minimum {})",
                                  style.width, k_min_width));
  }
  std::string out = truncate_to_width(printable_text(title), style.width) + '\n';
  if (values.rows() == 0 || values.cols() == 0) return out + "(empty map)\n";

  const auto queries = detail::labels_or_indices(row_labels, values.rows());
  int widest = 0;
  for (const auto& label : queries) widest = std::max(widest, display_width(printable_text(label)));
  const Layout lay = choose_layout(values.rows(), values.cols(), widest, style.width);
  const auto labels = prepare_row_labels(queries, lay.label_columns);
  const auto cells = pool_cells(values, mask, lay, style);

  if (style.color == ColorMode::none) {
    append_ascii_map(out, cells, lay, labels);
  } else {
    append_colour_map(out, cells, lay, labels, style);
  }
  append_ruler(out, lay);
  append_key_list(out, col_labels, style.width);
  append_legend(out, style);
  return out;
}

}  // namespace attnviz
