// Tables of scores and weights: rows = queries, columns = keys, labelled with tokens.
#pragma once

#include <string>
#include <vector>

#include "attnviz/compute/mask.hpp"
#include "attnviz/core/matrix.hpp"

namespace attnviz {

enum class TableFormat { text, csv, json };
TableFormat parse_table_format(const std::string& name);  // usage Error on unknown names

struct TableStyle {
  TableFormat format = TableFormat::text;
  int precision = 3;  // digits after the decimal point
};

// text: columns aligned by display width (CJK labels count 2 columns), masked cells shown as "-",
// header row of key labels; csv: RFC 4180 quoting, first column "query"; json: {"title","queries",
// "keys","values"} with masked cells null.
std::string render_table(const std::string& title, const Matrix& values, const Mask& mask,
                         const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, const TableStyle& style);

}  // namespace attnviz
