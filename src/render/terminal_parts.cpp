// Drawing pieces shared by the terminal views: ramp characters, half-block colour lines (▀, fg =
// upper pixel, bg = lower), labels, rulers, key lists and legends.
#include "terminal_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/unicode.hpp"
#include "attnviz/render/colormap.hpp"

namespace attnviz::detail {
namespace {

constexpr std::string_view k_ramp = " .:-=+*#%@";  // value vmin → ' ', vmax → '@'
constexpr char k_masked_char = '/';                // never confused with a weight of 0 (' ')
constexpr Rgb k_masked_rgb{128, 128, 128};
constexpr char k_non_finite_char = '!';  // NaN / inf: not a value of the ramp
constexpr std::string_view k_upper_half = "▀";
constexpr std::string_view k_full_block = "█";
constexpr std::string_view k_reset = "\x1b[0m";
constexpr std::string_view k_key_separator = " · ";
constexpr int k_legend_cells = 20;

std::string colour_escape(ColorMode mode, bool foreground, std::optional<Rgb> c) {
  if (!c) return foreground ? "\x1b[39m" : "\x1b[49m";  // the terminal's default colour
  const int layer = foreground ? 38 : 48;
  if (mode == ColorMode::ansi256) return fmt::format("\x1b[{};5;{}m", layer, ansi256_index(*c));
  return fmt::format("\x1b[{};2;{};{};{}m", layer, c->r, c->g, c->b);
}

Rgb cell_colour(const TermCell& cell, ColormapId cmap) {
  if (cell.non_finite) return k_non_finite_rgb;
  return cell.masked ? k_masked_rgb : colormap(cmap, cell.t);
}

}  // namespace

std::string ascii_row(const CellGrid& grid, int q) {
  const auto last = static_cast<float>(k_ramp.size() - 1);
  std::string out;
  for (int c = 0; c < grid.cols; ++c) {
    const TermCell& cell = grid.at(q, c);
    const char ch = cell.non_finite ? k_non_finite_char
                    : cell.masked   ? k_masked_char
                                    : k_ramp[static_cast<size_t>(std::lround(cell.t * last))];
    out.append(static_cast<size_t>(grid.cell_columns), ch);
  }
  return out;
}

int colour_line_count(const CellGrid& grid) {
  return (grid.rows * grid.pixel_rows() + 1) / 2;
}

std::string colour_row(const CellGrid& grid, int y, const HeatmapStyle& style) {
  const int cw = grid.cell_columns;
  const int ph = grid.pixel_rows();
  const int n_pixel_rows = grid.rows * ph;
  const int upper_row = 2 * y / ph;
  const std::optional<int> lower_row =
      2 * y + 1 < n_pixel_rows ? std::optional<int>((2 * y + 1) / ph) : std::nullopt;
  std::string out, previous;
  for (int c = 0; c < grid.cols; ++c) {
    const Rgb upper = cell_colour(grid.at(upper_row, c), style.cmap);
    std::optional<Rgb> lower;
    if (lower_row) lower = cell_colour(grid.at(*lower_row, c), style.cmap);
    const std::string escape =
        colour_escape(style.color, true, upper) + colour_escape(style.color, false, lower);
    for (int k = 0; k < cw; ++k) {
      if (escape != previous) out += escape;
      previous = escape;
      out += k_upper_half;
    }
  }
  out += k_reset;
  return out;
}

std::optional<int> query_starting_on_line(const CellGrid& grid, int y) {
  const int ph = grid.pixel_rows();
  const int q = (2 * y + ph - 1) / ph;  // the first pooled row starting on or after pixel row 2y
  if (q < grid.rows && q * ph / 2 == y) return q;
  return std::nullopt;
}

std::vector<std::string> prepare_row_labels(const std::vector<std::string>& labels, int columns) {
  std::vector<std::string> out;
  out.reserve(labels.size());
  for (const auto& label : labels) {
    out.push_back(pad_to_width(truncate_to_width(printable_text(label), columns), columns));
  }
  return out;
}

int widest_label(const std::vector<std::string>& labels) {
  int widest = 0;
  for (const auto& label : labels) widest = std::max(widest, display_width(printable_text(label)));
  return widest;
}

std::string key_ruler(const CellGrid& grid) {
  if (grid.cell_columns < 2) return "";
  const int digits = static_cast<int>(std::to_string(grid.cols - 1).size());
  const int step = grid.cell_columns > digits ? 1 : 5;
  std::string ruler(static_cast<size_t>(grid.cols * grid.cell_columns), ' ');
  for (int k = 0; k < grid.cols; k += step) {
    const std::string index = std::to_string(k);
    const auto at = static_cast<size_t>(k * grid.cell_columns);
    if (at + index.size() <= ruler.size()) ruler.replace(at, index.size(), index);
  }
  return ruler;
}

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
    const std::string nan_note =
        style.non_finite ? fmt::format("  {} NaN/inf", k_non_finite_char) : "";
    out += truncate_to_width(
        fmt::format("{} [{}] {}  {} masked{}", lo, k_ramp, hi, k_masked_char, nan_note),
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
  out += fmt::format("{} {}  {}{}{}{}", k_reset, hi, colour_escape(style.color, true, k_masked_rgb),
                     k_full_block, k_reset, masked_note);
  if (style.non_finite) {
    out += fmt::format("  {}{}{} NaN/inf", colour_escape(style.color, true, k_non_finite_rgb),
                       k_full_block, k_reset);
  }
  out += '\n';
}

std::vector<std::string> pooled_row_labels(int64_t n_query, int pool) {
  std::vector<std::string> out(static_cast<size_t>(n_query));
  for (int64_t q = 0; q < n_query; q += pool) {
    const int64_t last = std::min<int64_t>(q + pool, n_query) - 1;
    out[static_cast<size_t>(q)] = last > q ? fmt::format("{}\u2013{}", q, last) : std::to_string(q);
  }
  return out;
}

std::string pooled_key_ruler(int cols, int pool) {
  std::string ruler(static_cast<size_t>(std::max(cols, 0)), ' ');
  for (int c = 0; c < cols; c += 10) {
    const std::string index = std::to_string(static_cast<int64_t>(c) * pool);
    if (static_cast<size_t>(c) + index.size() <= ruler.size())
      ruler.replace(static_cast<size_t>(c), index.size(), index);
  }
  return ruler;
}

std::string pooled_note(int pool, int width) {
  return truncate_to_width(
             fmt::format(
                 "{0}\u00d7{0} tokens per cell, their largest weight (max-pooled to fit; "
                 "rows: the queries each covers; ruler: the first key of every 10th column)",
                 pool),
             width) +
         '\n';
}

std::string trim_right(std::string text) {
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

}  // namespace attnviz::detail
