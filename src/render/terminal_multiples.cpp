// Terminal small multiples: the heads of one (stack, layer, site) side by side, each a panel of
// max-pooled cells under its title (pooling said under the title, pooled rows labelled by their
// queries), with the query labels once on the left and one legend.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/terminal.hpp"
#include "shapes.hpp"  // labels_or_indices
#include "terminal_parts.hpp"

namespace attnviz {
namespace {

constexpr int k_min_panel_columns = 16;  // narrower panels only when the map itself is narrower
constexpr int k_max_cell_columns = 4;    // as the single heatmap: a 3×3 map stays small

// What every row of panels shares: the query labels, the pooling and the slot each panel takes.
struct PanelRow {
  const std::vector<std::string>& labels;  // prepared: padded to the label column
  int label_columns = 0;
  int pool = 1;
  int slot = 0;  // columns of a panel: its map or its title, whichever is wider
};

detail::CellGrid to_cells(const PooledMap& map, const CountMatrix& counts,
                          const MultiplesPlan& plan, const HeatmapStyle& style) {
  const Matrix values = map.values(PoolMode::max, counts);
  detail::CellGrid grid;
  grid.rows = plan.grid.cells_q;
  grid.cols = plan.grid.cells_k;
  grid.cell_columns = plan.cell_columns;
  // One-column keys would put two queries on a text line, one of them unlabelled: give each query
  // (pooled row) a line of its own instead, as the ASCII view does.
  grid.row_pixels = plan.cell_columns == 1 ? 2 : 0;
  for (int i = 0; i < grid.rows; ++i) {
    for (int j = 0; j < grid.cols; ++j) {
      // Masked weights are 0 and allowed ones ≥ 0: the cell's max is the max over allowed pairs.
      // The pooled max keeps a NaN (PooledMap), so a cell with one is drawn as non-finite.
      grid.cells.push_back({colormap_position(values(i, j), style.vmin, style.vmax),
                            counts(i, j) == 0, counts(i, j) > 0 && !std::isfinite(values(i, j))});
    }
  }
  return grid;
}

// Joins one piece per panel, each but the last padded to the slot, 2 columns apart.
std::string join_panels(const std::vector<std::string>& pieces, int slot) {
  std::string line;
  for (size_t k = 0; k < pieces.size(); ++k) {
    line += pieces[k];
    if (k + 1 < pieces.size()) {
      const int pad = slot - display_width(pieces[k]) + k_panel_gap;
      line.append(static_cast<size_t>(std::max(pad, 0)), ' ');
    }
  }
  return line;
}

void append_panel_row(std::string& out, const PanelRow& row, const std::vector<std::string>& titles,
                      const std::vector<detail::CellGrid>& grids, const HeatmapStyle& style) {
  const std::string blank(static_cast<size_t>(row.label_columns), ' ');
  out += detail::trim_right(blank + ' ' + join_panels(titles, row.slot)) + '\n';
  const detail::CellGrid& first = grids.front();
  const bool ascii = style.color == ColorMode::none;
  const int n_lines = ascii ? first.rows : detail::colour_line_count(first);
  for (int y = 0; y < n_lines; ++y) {
    const auto q = ascii ? std::optional<int>(y) : detail::query_starting_on_line(first, y);
    std::vector<std::string> pieces;
    for (const auto& grid : grids) {
      pieces.push_back(ascii ? detail::ascii_row(grid, y) : detail::colour_row(grid, y, style));
    }
    // Colour pieces carry escapes: pad by the map's width in cells, not the bytes.
    std::string line = q ? row.labels[static_cast<size_t>(*q * row.pool)] : blank;
    line += ' ';
    for (size_t k = 0; k < pieces.size(); ++k) {
      line += pieces[k];
      if (k + 1 < pieces.size()) {
        line.append(static_cast<size_t>(row.slot - first.cols * first.cell_columns + k_panel_gap),
                    ' ');
      }
    }
    out += line + '\n';
  }
  const std::string ruler =
      row.pool > 1 ? detail::pooled_key_ruler(first.cols, row.pool) : detail::key_ruler(first);
  if (!ruler.empty()) {
    out +=
        detail::trim_right(blank + ' ' + join_panels(std::vector(grids.size(), ruler), row.slot)) +
        '\n';
  }
}

void check_panels(const MultiplesPlan& plan, const std::vector<TerminalPanel>& panels,
                  const Mask& mask, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& col_labels) {
  if (panels.empty()) throw Error("small multiples: no panels");
  for (const auto& panel : panels) {
    const PoolGrid& g = panel.map.grid();
    if (g.n_query != plan.grid.n_query || g.n_key != plan.grid.n_key || g.pool != plan.grid.pool) {
      throw Error(
          fmt::format("small multiples: panel '{}' is a [{}, {}] map pooled by {}, the plan "
                      "[{}, {}] pooled by {}",
                      panel.title, g.n_query, g.n_key, g.pool, plan.grid.n_query, plan.grid.n_key,
                      plan.grid.pool));
    }
  }
  // As detail::check_map_shapes, without the full map it takes.
  const int n_query = plan.grid.n_query, n_key = plan.grid.n_key;
  const auto mask_rows = mask.matrix ? mask.matrix->rows() : n_query;
  const auto mask_cols = mask.matrix ? mask.matrix->cols() : n_key;
  if (mask_rows != n_query || mask_cols != n_key ||
      (!row_labels.empty() && std::ssize(row_labels) != n_query) ||
      (!col_labels.empty() && std::ssize(col_labels) != n_key)) {
    throw Error(
        fmt::format("small multiples: a [{}, {}] map with {} query labels, {} key labels "
                    "and a [{}, {}] mask",
                    n_query, n_key, row_labels.size(), col_labels.size(), mask_rows, mask_cols));
  }
}

// The layout when the row labels are widest_label columns wide (plan_multiples, twice when pooled).
MultiplesPlan plan_panels(int n_query, int n_key, const std::vector<std::string>& titles,
                          int widest_label, int width) {
  MultiplesPlan plan;
  plan.label_columns = std::min({widest_label, detail::k_max_label_columns, width / 3});
  const int available = width - plan.label_columns - 1;
  const int n_panels = static_cast<int>(titles.size());
  const int smallest = std::min(
      std::max(std::min(n_key, k_min_panel_columns), detail::widest_label(titles)), available);
  const int fit = std::clamp((available + k_panel_gap) / (smallest + k_panel_gap), 1, n_panels);
  const int panel_rows = (n_panels + fit - 1) / fit;
  plan.panels_per_row =
      (n_panels + panel_rows - 1) / panel_rows;  // balanced: 12 → 6 + 6, not 10 + 2
  plan.panel_columns = (available - k_panel_gap * (plan.panels_per_row - 1)) / plan.panels_per_row;
  plan.grid = PoolGrid::for_map(n_query, n_key, plan.panel_columns);
  plan.cell_columns =
      plan.grid.pool == 1 ? std::clamp(plan.panel_columns / n_key, 1, k_max_cell_columns) : 1;
  return plan;
}

}  // namespace

MultiplesPlan plan_multiples(int n_query, int n_key, const std::vector<std::string>& titles,
                             const std::vector<std::string>& row_labels, int width) {
  if (width < detail::k_min_width) {
    throw usage_error(fmt::format("terminal width {} is too narrow for a heatmap (minimum {})",
                                  width, detail::k_min_width));
  }
  if (titles.empty() || n_query <= 0 || n_key <= 0) {
    throw Error(
        fmt::format("small multiples: {} panels of a [{}, {}] map", titles.size(), n_query, n_key));
  }
  MultiplesPlan plan =
      plan_panels(n_query, n_key, titles,
                  detail::widest_label(detail::labels_or_indices(row_labels, n_query)), width);
  if (plan.grid.pool >
      1) {  // pooled rows are labelled by their query ranges: the label column fits those
    plan = plan_panels(n_query, n_key, titles,
                       detail::widest_label(detail::pooled_row_labels(n_query, plan.grid.pool)),
                       width);
  }
  return plan;
}

std::string render_multiples(const std::string& title, const MultiplesPlan& plan,
                             const std::vector<TerminalPanel>& panels, const Mask& mask,
                             const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels,
                             const HeatmapStyle& style) {
  check_panels(plan, panels, mask, row_labels, col_labels);
  std::string out = truncate_to_width(printable_text(title), style.width) + '\n';
  const bool pooled = plan.grid.pool > 1;
  if (pooled)
    out += detail::pooled_note(plan.grid.pool, style.width);  // as the figures' captions say it
  const auto labels = detail::prepare_row_labels(
      pooled ? detail::pooled_row_labels(plan.grid.n_query, plan.grid.pool)
             : detail::labels_or_indices(row_labels, plan.grid.n_query),
      plan.label_columns);
  const CountMatrix counts = allowed_counts(mask, plan.grid);
  int widest_title = 0;
  for (const auto& panel : panels) {
    widest_title = std::max(widest_title, display_width(printable_text(panel.title)));
  }
  const int map_columns = plan.grid.cells_k * plan.cell_columns;
  const PanelRow row{labels, plan.label_columns, plan.grid.pool,
                     std::max(map_columns, std::min(widest_title, plan.panel_columns))};

  const auto per_row = static_cast<size_t>(plan.panels_per_row);
  for (size_t begin = 0; begin < panels.size(); begin += per_row) {
    if (begin > 0) out += '\n';  // a blank line between rows of panels
    std::vector<std::string> titles;
    std::vector<detail::CellGrid> grids;
    for (size_t k = begin; k < std::min(begin + per_row, panels.size()); ++k) {
      titles.push_back(truncate_to_width(printable_text(panels[k].title), row.slot));
      grids.push_back(to_cells(panels[k].map, counts, plan, style));
    }
    append_panel_row(out, row, titles, grids, style);
  }
  detail::append_key_list(out, col_labels, style.width);
  detail::append_legend(out, style);
  return out;
}

}  // namespace attnviz
