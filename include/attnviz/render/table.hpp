// Tables of scores and weights: rows = queries, columns = keys, labelled with tokens.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/terminal.hpp"

namespace attnviz {

enum class TableFormat { text, csv, json, markdown };
TableFormat parse_table_format(const std::string& name);  // usage Error on unknown names
const char* table_format_name(TableFormat format);        // "text", "csv", …

struct TableStyle {
  TableFormat format = TableFormat::text;
  int precision = 3;  // digits after the decimal point
  // text only: each value cell's background coloured by its value through cmap over [vmin, vmax]
  // (text black or white for contrast) when color is not none.
  ColorMode color = ColorMode::none;
  ColormapId cmap = ColormapId::viridis;
  float vmin = 0.0f, vmax = 1.0f;
  int width = 0;  // text only: split wider tables into blocks of keys (0 = no limit)
};

// Which map a table shows, as JSON fields beside the title: stack ("" for a single stack), layer,
// site ("self" / "cross"), head, kind ("probs" / "scores").
struct TableId {
  std::string stack;
  int layer = 0;
  std::string site;
  int head = 0;
  std::string kind;
};

// text: columns aligned by display width (CJK labels count 2 columns), masked cells shown as "-",
// header row of key labels; a table wider than style.width is split into blocks of keys, each
// under "keys 0–9 of 40" and repeating the row labels (cut with … when even the widest key column
// does not fit beside them; width_note then says so if it still does not). csv: RFC 4180 quoting,
// first column "query". json: {"title", id's fields when given, "queries", "keys", "values"} with
// masked cells null and NaN / ±inf as the strings "nan" / "inf" / "-inf". markdown: a GitHub table
// under the title in bold, values right-aligned, masked cells "-", labels escaped (markdown_field).
std::string render_table(const std::string& title, const Matrix& values, const Mask& mask,
                         const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, const TableStyle& style,
                         const TableId* id = nullptr, std::string* width_note = nullptr);

// CSV in pieces, for maps too large to hold (the terminal sink streams it as row blocks arrive):
// the header line, then rows [row_begin, row_begin + rows.rows()) of the map. Labels empty:
// indices. One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line break, quotes
// doubled; text starting with =, +, -, @, tab or CR (a spreadsheet formula) prefixed with ',
// numbers kept.
std::string csv_field(std::string_view field);
std::string csv_table_header(const std::vector<std::string>& col_labels, Eigen::Index n_cols);
std::string csv_table_rows(ConstMatrixRef rows, Eigen::Index row_begin, const Mask& mask,
                           const std::vector<std::string>& row_labels, int precision);

// JSON in pieces, the same bytes as render_table: the object up to `"values":[` (labels empty:
// indices), rows [row_begin, …) (a comma before every row but row 0), the end "]}\n".
std::string json_table_begin(const std::string& title, const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels, Eigen::Index n_rows,
                             Eigen::Index n_cols, const TableId* id = nullptr);
std::string json_table_rows(ConstMatrixRef rows, Eigen::Index row_begin, const Mask& mask);
std::string json_table_end();

// A field of a Markdown table: control characters made visible (printable_text), &, <, > as
// entities (GitHub reads "<s>" as HTML), "|" and Markdown's inline syntax (\ * _ ` [ ] ~) escaped.
std::string markdown_field(std::string_view field);

// Tables of text cells (reports: stats, heads, predictions). column_widths: each column's widest
// cell in display columns. aligned_columns: the chosen columns of every row padded to those widths
// (left(c): left-aligned, else right), two spaces apart, trailing spaces trimmed; markdown: between
// pipes, with an alignment row under the first row (the header).
std::vector<int> column_widths(const std::vector<std::vector<std::string>>& rows);
std::string aligned_columns(const std::vector<std::vector<std::string>>& rows,
                            const std::vector<int>& widths, const std::vector<size_t>& columns,
                            const std::function<bool(size_t)>& left, bool markdown);

// A report's table of text cells (first row the header) in a format other than JSON: csv, RFC 4180,
// without the title; text and markdown, the title line then every column aligned (left(c):
// left-aligned), cells made printable (markdown: escaped).
std::string report_table(const std::string& title, std::vector<std::vector<std::string>> rows,
                         TableFormat format, const std::function<bool(size_t)>& left);

// Text and Markdown tables are built whole (aligned columns), so maps with more cells than this are
// refused with a hint instead of filling memory; CSV and JSON stream (JSON with --table both does
// not).
inline constexpr int64_t k_max_table_cells = 512 * 512;

}  // namespace attnviz
