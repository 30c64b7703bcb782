// The text of `explain`: a Printer of headed steps and aligned matrices (text or Markdown), token
// names for rows and columns, and matrices as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/reports/explain_report.hpp"

namespace attnviz::detail {

// Each line of a text table indented by three spaces, under its step's heading.
std::string indented(const std::string& table);
// v with `precision` decimals; "nan", "inf", "-inf" as written.
std::string number(double v, int precision);

// The top-left rows × cols of m as an aligned table: row names down the left, column names on top,
// "…" where it was cut.
class Printer {
 public:
  explicit Printer(const ExplainOptions& o) : o_(o), markdown_(o.format == TableFormat::markdown) {}

  void heading(const std::string& text) {
    out_ += markdown_ ? "\n### " + text + "\n\n" : "\n" + text + "\n";
  }
  void line(const std::string& text) {
    out_ += (markdown_ ? "" : "   ") + text + (markdown_ ? "\n\n" : "\n");
  }

  // The top-left o.rows × o.cols of m, rows named by row_names, columns col_prefix + index.
  void matrix(const std::string& name, ConstMatrixRef m, const std::vector<std::string>& row_names,
              const std::string& col_prefix);

  std::string take() { return std::move(out_); }

 private:
  const ExplainOptions& o_;
  bool markdown_;
  std::string out_;
};

// "i label" for the first n tokens (just i when the label is the index or missing).
std::vector<std::string> token_names(const std::vector<std::string>* labels, Eigen::Index n);
// m as rows of numbers; non-finite values as "nan", "inf", "-inf".
nlohmann::json matrix_json(ConstMatrixRef m);

}  // namespace attnviz::detail
