// Tables of attention scores and weights: aligned text (display-width aware, optionally coloured
// by value), RFC 4180 CSV, JSON, Markdown.
#include "attnviz/render/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "shapes.hpp"

namespace attnviz {
namespace {

constexpr std::string_view k_column_gap = "  ";
constexpr std::string_view k_masked_text = "-";

std::string format_value(float v, int precision) {
  return fmt::format("{:.{}f}", v, precision);
}

// The text of every cell, row-major; masked cells as `masked`.
std::vector<std::string> cell_texts(const Matrix& values, const Mask& mask, int precision,
                                    std::string_view masked) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(values.size()));
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < values.cols(); ++j) {
      out.push_back(mask.allowed(i, j, values.cols()) ? format_value(values(i, j), precision)
                                                      : std::string(masked));
    }
  }
  return out;
}

// A padded value cell with its background coloured by value (and black or white text by luma);
// NaN / inf on magenta, a colour of no map.
std::string coloured_cell(const std::string& padded, float v, const TableStyle& style) {
  const Rgb bg = std::isfinite(v)
                     ? colormap(style.cmap, colormap_position(v, style.vmin, style.vmax))
                     : k_non_finite_rgb;
  const bool light = 0.299f * bg.r + 0.587f * bg.g + 0.114f * bg.b > 140.0f;
  const std::string fg = light ? "30" : "97";
  if (style.color == ColorMode::truecolor) {
    return fmt::format("\x1b[{};48;2;{};{};{}m{}\x1b[0m", fg, bg.r, bg.g, bg.b, padded);
  }
  return fmt::format("\x1b[{};48;5;{}m{}\x1b[0m", fg, ansi256_index(bg), padded);
}

// The columns of each block of a text table `width` columns wide: as many keys as fit after the
// row labels, each key column its gap plus its width; one key per block at least.
std::vector<std::pair<size_t, size_t>> column_blocks(const std::vector<int>& widths,
                                                     int label_width, int width) {
  std::vector<std::pair<size_t, size_t>> blocks;
  size_t begin = 0;
  int used = label_width;
  for (size_t j = 0; j < widths.size(); ++j) {
    const int need = static_cast<int>(k_column_gap.size()) + widths[j];
    if (width > 0 && j > begin && used + need > width) {
      blocks.emplace_back(begin, j);
      begin = j, used = label_width;
    }
    used += need;
  }
  blocks.emplace_back(begin, widths.size());
  return blocks;
}

// The key header and the rows of keys [begin, end), row labels padded to label_width.
std::string render_text_block(const Matrix& values, const Mask& mask,
                              const std::vector<std::string>& cells,
                              const std::vector<std::string>& row_labels,
                              const std::vector<std::string>& col_labels,
                              const std::vector<int>& widths, int label_width,
                              std::pair<size_t, size_t> keys, const TableStyle& style) {
  const auto n_cols = static_cast<size_t>(values.cols());
  std::string out = pad_to_width("", label_width);
  for (size_t j = keys.first; j < keys.second; ++j) {
    out += k_column_gap;
    out += pad_to_width(col_labels[j], widths[j], true);
  }
  out += '\n';
  for (size_t i = 0; i < row_labels.size(); ++i) {
    out += pad_to_width(row_labels[i], label_width);
    for (size_t j = keys.first; j < keys.second; ++j) {
      out += k_column_gap;
      std::string cell = pad_to_width(cells[i * n_cols + j], widths[j], true);
      const auto ii = static_cast<Eigen::Index>(i), jj = static_cast<Eigen::Index>(j);
      if (style.color != ColorMode::none && mask.allowed(ii, jj, values.cols())) {
        cell = coloured_cell(cell, values(ii, jj), style);
      }
      out += cell;
    }
    out += '\n';
  }
  return out;
}

// What a text table prints: labels made printable (and cut to fit), the width of every column.
struct TextColumns {
  std::vector<std::string> row_labels, col_labels;
  int label_width = 0;      // of the row labels
  std::vector<int> widths;  // of each key column: its label or its widest value
};

// When a key column does not fit beside the row labels in `width` (> 0), labels are cut with …:
// the row labels to leave room for the widest value, then each key label down to its values.
// Returns the columns a line still needs when even that is too wide, else 0.
int fit_columns(TextColumns& t, const std::vector<int>& value_widths, int width) {
  const int gap = static_cast<int>(k_column_gap.size());
  const int widest_value =
      value_widths.empty() ? 0 : *std::max_element(value_widths.begin(), value_widths.end());
  if (t.label_width + gap + widest_value > width) {
    const int room = std::max(width - gap - widest_value, 1);
    for (auto& label : t.row_labels) label = truncate_to_width(label, room);
    t.label_width = std::min(t.label_width, room);
  }
  int needed = 0;
  for (size_t j = 0; j < t.widths.size(); ++j) {
    if (t.label_width + gap + t.widths[j] <= width) continue;
    t.widths[j] = std::max(value_widths[j], width - gap - t.label_width);
    t.col_labels[j] = truncate_to_width(t.col_labels[j], t.widths[j]);
    needed = std::max(needed, t.label_width + gap + t.widths[j]);
  }
  return needed > width ? needed : 0;
}

// A key column that cannot fit even with its labels cut is printed whole and reported in
// width_note.
std::string render_text(const std::string& title, const Matrix& values, const Mask& mask,
                        const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                        const TableStyle& style, std::string* width_note) {
  const auto cells = cell_texts(values, mask, style.precision, k_masked_text);
  const auto n_cols = static_cast<size_t>(values.cols());
  TextColumns t;
  for (const auto& label : rows) t.row_labels.push_back(printable_text(label));
  for (const auto& label : cols) t.col_labels.push_back(printable_text(label));
  for (const auto& label : t.row_labels)
    t.label_width = std::max(t.label_width, display_width(label));
  std::vector<int> value_widths(n_cols, 0);
  for (size_t j = 0; j < n_cols; ++j) {
    for (size_t i = 0; i < t.row_labels.size(); ++i) {
      value_widths[j] = std::max(value_widths[j], display_width(cells[i * n_cols + j]));
    }
    t.widths.push_back(std::max(value_widths[j], display_width(t.col_labels[j])));
  }
  if (style.width > 0) {
    const int needed = fit_columns(t, value_widths, style.width);
    if (needed > 0 && width_note) {
      *width_note = fmt::format(
          "a column of '{}' needs {} columns, more than --width {}: lines are "
          "wider than the terminal",
          title, needed, style.width);
    }
  }
  const auto& [row_labels, col_labels, label_width, widths] = t;
  const auto blocks = column_blocks(widths, label_width, style.width);
  std::string out = printable_text(title) + '\n';
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks.size() > 1) {
      if (b > 0) out += '\n';
      const auto [begin, end] = blocks[b];
      out += end - begin == 1 ? fmt::format("key {} of {}\n", begin, n_cols)
                              : fmt::format("keys {}\u2013{} of {}\n", begin, end - 1, n_cols);
    }
    out += render_text_block(values, mask, cells, row_labels, col_labels, widths, label_width,
                             blocks[b], style);
  }
  return out;
}

// Lines end in "\n" rather than RFC 4180's CRLF: every CSV reader accepts it, and it is what a
// Unix pipeline expects. The title has no place in CSV and is left out.
std::string render_csv(const Matrix& values, const Mask& mask, const std::vector<std::string>& rows,
                       const std::vector<std::string>& cols, int precision) {
  return csv_table_header(cols, values.cols()) + csv_table_rows(values, 0, mask, rows, precision);
}

std::string render_markdown(const std::string& title, const Matrix& values, const Mask& mask,
                            const std::vector<std::string>& rows,
                            const std::vector<std::string>& cols, int precision) {
  const auto cells = cell_texts(values, mask, precision, k_masked_text);
  std::string out = "**" + markdown_field(title) + "**\n\n| query |";
  for (const auto& label : cols) out += ' ' + markdown_field(label) + " |";
  out += "\n|---|";
  for (size_t j = 0; j < cols.size(); ++j) out += "---:|";
  out += '\n';
  for (size_t i = 0; i < rows.size(); ++i) {
    out += "| " + markdown_field(rows[i]) + " |";
    for (size_t j = 0; j < cols.size(); ++j) out += ' ' + cells[i * cols.size() + j] + " |";
    out += '\n';
  }
  return out;
}

// The double whose shortest decimal form is the float's shortest form, so 0.1f prints as 0.1 (not
// 0.10000000149011612) yet parses back to the same float: full float precision, no noise digits.
double shortest_double(float v) {
  char buffer[32] = {};  // the longest float, "-1.17549435e-38", needs 15
  std::to_chars(buffer, buffer + sizeof buffer - 1, v);
  return std::strtod(buffer, nullptr);
}

std::string render_json(const std::string& title, const Matrix& values, const Mask& mask,
                        const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                        const TableId* id) {
  return json_table_begin(title, rows, cols, values.rows(), values.cols(), id) +
         json_table_rows(values, 0, mask) + json_table_end();
}

}  // namespace

std::string report_table(const std::string& title, std::vector<std::vector<std::string>> rows,
                         TableFormat format, const std::function<bool(size_t)>& left) {
  if (format == TableFormat::csv) {
    std::string out;
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_field(row[c]);
      out += '\n';
    }
    return out;
  }
  const bool markdown = format == TableFormat::markdown;
  for (auto& row : rows) {
    for (auto& cell : row) cell = markdown ? markdown_field(cell) : printable_text(cell);
  }
  std::string out =
      markdown ? "**" + markdown_field(title) + "**\n\n" : printable_text(title) + '\n';
  std::vector<size_t> columns(rows.empty() ? 0 : rows.front().size());
  for (size_t c = 0; c < columns.size(); ++c) columns[c] = c;
  return out + aligned_columns(rows, column_widths(rows), columns, left, markdown);
}

std::vector<int> column_widths(const std::vector<std::vector<std::string>>& rows) {
  std::vector<int> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  return widths;
}

std::string aligned_columns(const std::vector<std::vector<std::string>>& rows,
                            const std::vector<int>& widths, const std::vector<size_t>& columns,
                            const std::function<bool(size_t)>& left, bool markdown) {
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = markdown ? "| " : "";
    for (size_t c : columns) {
      if (c != columns.front()) line += markdown ? " | " : "  ";
      line += pad_to_width(rows[r][c], widths[c], !left(c));
    }
    if (markdown) line += " |";
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
    if (markdown && r == 0) {
      for (size_t c : columns) {
        const std::string dashes(static_cast<size_t>(std::max(2, widths[c])), '-');
        out += left(c) ? "|:" + dashes + ' ' : "| " + dashes + ':';
      }
      out += "|\n";
    }
  }
  return out;
}

std::string csv_table_header(const std::vector<std::string>& col_labels, Eigen::Index n_cols) {
  std::string out = "query";
  for (const auto& label : detail::labels_or_indices(col_labels, n_cols))
    out += ',' + csv_field(label);
  return out + '\n';
}

std::string csv_table_rows(ConstMatrixRef rows, Eigen::Index row_begin, const Mask& mask,
                           const std::vector<std::string>& row_labels, int precision) {
  std::string out;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Eigen::Index row = row_begin + i;
    out += row_labels.empty() ? std::to_string(row)
                              : csv_field(row_labels.at(static_cast<size_t>(row)));
    for (Eigen::Index j = 0; j < rows.cols(); ++j) {
      out += ',';
      if (mask.allowed(row, j, rows.cols())) out += format_value(rows(i, j), precision);
    }
    out += '\n';
  }
  return out;
}

std::string json_table_begin(const std::string& title, const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels, Eigen::Index n_rows,
                             Eigen::Index n_cols, const TableId* id) {
  nlohmann::ordered_json doc;
  doc["title"] = title;
  if (id) {
    doc["stack"] = id->stack;
    doc["layer"] = id->layer;
    doc["site"] = id->site;
    doc["head"] = id->head;
    doc["kind"] = id->kind;
  }
  doc["queries"] = detail::labels_or_indices(row_labels, n_rows);
  doc["keys"] = detail::labels_or_indices(col_labels, n_cols);
  // Labels of byte-level tokens may be invalid UTF-8: write U+FFFD rather than throw.
  std::string out = doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  out.pop_back();  // the closing brace: "values" follows
  return out + ",\"values\":[";
}

std::string json_table_rows(ConstMatrixRef rows, Eigen::Index row_begin, const Mask& mask) {
  std::string out;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    auto row = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < rows.cols(); ++j) {
      // Masked cells are null. NaN and ±inf have no JSON number: they are the strings "nan",
      // "inf" and "-inf", so a broken cell is never mistaken for a masked one (or for a number).
      const float v = rows(i, j);
      if (!mask.allowed(row_begin + i, j, rows.cols())) {
        row.push_back(nullptr);
      } else if (!std::isfinite(v)) {
        row.push_back(non_finite_text(v));
      } else {
        row.push_back(shortest_double(v));
      }
    }
    if (row_begin + i > 0) out += ',';
    out += row.dump();
  }
  return out;
}

std::string json_table_end() {
  return "]}\n";
}

TableFormat parse_table_format(const std::string& name) {
  if (name == "text") return TableFormat::text;
  if (name == "csv") return TableFormat::csv;
  if (name == "json") return TableFormat::json;
  if (name == "markdown") return TableFormat::markdown;
  throw usage_error(
      fmt::format("unknown table format '{}' (known: text, csv, json, markdown)", name));
}

const char* table_format_name(TableFormat format) {
  switch (format) {
    case TableFormat::text:
      return "text";
    case TableFormat::csv:
      return "csv";
    case TableFormat::json:
      return "json";
    case TableFormat::markdown:
      return "markdown";
  }
  return "?";
}

std::string render_table(const std::string& title, const Matrix& values, const Mask& mask,
                         const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, const TableStyle& style,
                         const TableId* id, std::string* width_note) {
  detail::check_map_shapes("table", values, mask, row_labels, col_labels);
  if (style.precision < 0 || style.precision > 9) {
    throw usage_error(fmt::format("table precision {} is out of range [0, 9]", style.precision));
  }
  const auto rows = detail::labels_or_indices(row_labels, values.rows());
  const auto cols = detail::labels_or_indices(col_labels, values.cols());
  switch (style.format) {
    case TableFormat::text:
      return render_text(title, values, mask, rows, cols, style, width_note);
    case TableFormat::csv:
      return render_csv(values, mask, rows, cols, style.precision);
    case TableFormat::json:
      return render_json(title, values, mask, rows, cols, id);
    case TableFormat::markdown:
      return render_markdown(title, values, mask, rows, cols, style.precision);
  }
  throw Error("table: unknown format");
}

}  // namespace attnviz
