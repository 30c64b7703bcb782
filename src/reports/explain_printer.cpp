// explain's printer: headed steps and aligned matrices, token names, JSON matrices.
#include "explain_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/unicode.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz::detail {

// Each line of a text table indented by three spaces, under its step's heading.
std::string indented(const std::string& table) {
  std::string out;
  for (size_t start = 0; start < table.size();) {
    const size_t end = std::min(table.find('\n', start), table.size());
    out += "   " + table.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string number(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", v, precision);
}

void Printer::matrix(const std::string& name, ConstMatrixRef m,
                     const std::vector<std::string>& row_names, const std::string& col_prefix) {
  const Eigen::Index r = std::min<Eigen::Index>(m.rows(), o_.rows),
                     c = std::min<Eigen::Index>(m.cols(), o_.cols);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {name};
  for (Eigen::Index j = 0; j < c; ++j) header.push_back(col_prefix + std::to_string(j));
  if (c < m.cols()) header.push_back("…");
  rows.push_back(header);
  for (Eigen::Index i = 0; i < r; ++i) {
    const std::string& token = row_names[static_cast<size_t>(i)];
    std::vector<std::string> row = {markdown_ ? markdown_field(token) : token};
    for (Eigen::Index j = 0; j < c; ++j) row.push_back(number(m(i, j), o_.precision));
    if (c < m.cols()) row.push_back("…");
    rows.push_back(row);
  }
  if (r < m.rows()) {
    rows.push_back(std::vector<std::string>(rows.front().size(), "⋮"));
    rows.back()[0] = fmt::format("({} rows)", m.rows());
  }
  const std::vector<int> widths = column_widths(rows);
  std::vector<size_t> columns(rows.front().size());
  for (size_t k = 0; k < columns.size(); ++k) columns[k] = k;
  std::string table = aligned_columns(
      rows, widths, columns, [](size_t k) { return k == 0; }, markdown_);
  if (!markdown_) table = indented(table);  // under its step
  out_ += table + (markdown_ ? "\n" : "");
}

std::vector<std::string> token_names(const std::vector<std::string>* labels, Eigen::Index n) {
  std::vector<std::string> names;
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::string label =
        labels && static_cast<size_t>(i) < labels->size() ? (*labels)[static_cast<size_t>(i)] : "";
    names.push_back(label.empty() || label == std::to_string(i)
                        ? std::to_string(i)
                        : fmt::format("{} {}", i, truncate_to_width(printable_text(label), 12)));
  }
  return names;
}

nlohmann::json matrix_json(ConstMatrixRef m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const float v = m(i, j);
      row.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(number(v, 0)));
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace attnviz::detail
