// Terminal heatmap of one map: half-block colour pixels or an ASCII ramp, max-pooled to fit the
// width (and then saying so, with query ranges as row labels and a ruler of key indices), with
// query labels, a key ruler, a key list and a legend.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/terminal.hpp"
#include "shapes.hpp"
#include "terminal_parts.hpp"

namespace attnviz {
namespace {

constexpr int k_max_cell_columns = 4;  // a 3×3 map should not fill the screen

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
  lay.label_columns = std::min({widest_label, detail::k_max_label_columns, width / 3});
  const int available = width - lay.label_columns - 1;
  const auto n_key_int = static_cast<int>(n_key);
  lay.pool = (n_key_int + available - 1) / available;
  lay.cols = (n_key_int + lay.pool - 1) / lay.pool;
  lay.rows = static_cast<int>((n_query + lay.pool - 1) / lay.pool);
  lay.cell_columns = lay.pool == 1 ? std::clamp(available / n_key_int, 1, k_max_cell_columns) : 1;
  return lay;
}

// Max-pools p × p blocks of the allowed cells (a masked source cell never wins over a real one).
detail::CellGrid pool_cells(const Matrix& values, const Mask& mask, const Layout& lay,
                            const HeatmapStyle& style) {
  detail::CellGrid grid;
  grid.rows = lay.rows;
  grid.cols = lay.cols;
  grid.cell_columns = lay.cell_columns;
  grid.row_pixels = lay.cell_columns == 1 ? 2 : 0;  // one text line per query, so each is labelled
  grid.cells.resize(static_cast<size_t>(lay.rows) * static_cast<size_t>(lay.cols));
  const Eigen::Index n_key = values.cols();
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < n_key; ++j) {
      if (!mask.allowed(i, j, n_key)) continue;
      detail::TermCell& cell =
          grid.cells[static_cast<size_t>(i / lay.pool * lay.cols + j / lay.pool)];
      const float t = colormap_position(values(i, j), style.vmin, style.vmax);
      cell.t = cell.masked ? t : std::max(cell.t, t);
      cell.masked = false;
      cell.non_finite = cell.non_finite || !std::isfinite(values(i, j));
    }
  }
  return grid;
}

void append_map(std::string& out, const detail::CellGrid& grid, const Layout& lay,
                const std::vector<std::string>& labels, const HeatmapStyle& style) {
  if (style.color == ColorMode::none) {
    for (int q = 0; q < grid.rows; ++q) {
      out += labels[static_cast<size_t>(q * lay.pool)] + ' ' + detail::ascii_row(grid, q) + '\n';
    }
    return;
  }
  const std::string blank(static_cast<size_t>(lay.label_columns), ' ');
  for (int y = 0; y < detail::colour_line_count(grid); ++y) {
    const auto q = detail::query_starting_on_line(grid, y);
    out += q ? labels[static_cast<size_t>(*q * lay.pool)] : blank;
    out += ' ' + detail::colour_row(grid, y, style) + '\n';
  }
}

}  // namespace

std::string render_heatmap(const std::string& title, const Matrix& values, const Mask& mask,
                           const std::vector<std::string>& row_labels,
                           const std::vector<std::string>& col_labels, const HeatmapStyle& style) {
  detail::check_map_shapes("heatmap", values, mask, row_labels, col_labels);
  if (style.width < detail::k_min_width) {
    throw usage_error(fmt::format("terminal width {} is too narrow for a heatmap (minimum {})",
                                  style.width, detail::k_min_width));
  }
  std::string out = truncate_to_width(printable_text(title), style.width) + '\n';
  if (values.rows() == 0 || values.cols() == 0) return out + "(empty map)\n";

  const auto queries = detail::labels_or_indices(row_labels, values.rows());
  Layout lay =
      choose_layout(values.rows(), values.cols(), detail::widest_label(queries), style.width);
  if (lay.pool >
      1) {  // pooled rows are labelled by their query ranges: the label column fits those
    lay = choose_layout(values.rows(), values.cols(),
                        detail::widest_label(detail::pooled_row_labels(values.rows(), lay.pool)),
                        style.width);
  }
  const detail::CellGrid grid = pool_cells(values, mask, lay, style);
  if (lay.pool > 1)
    out += detail::pooled_note(lay.pool, style.width);  // as the figures' captions say it
  const auto labels = detail::prepare_row_labels(
      lay.pool > 1 ? detail::pooled_row_labels(values.rows(), lay.pool) : queries,
      lay.label_columns);

  append_map(out, grid, lay, labels, style);
  if (lay.pool > 1) {
    out += std::string(static_cast<size_t>(lay.label_columns + 1), ' ') +
           detail::trim_right(detail::pooled_key_ruler(lay.cols, lay.pool)) + '\n';
  } else if (const std::string ruler = detail::trim_right(detail::key_ruler(grid));
             !ruler.empty()) {
    out += std::string(static_cast<size_t>(lay.label_columns + 1), ' ') + ruler + '\n';
  }
  detail::append_key_list(out, col_labels, style.width);
  detail::append_legend(out, style);
  return out;
}

}  // namespace attnviz
