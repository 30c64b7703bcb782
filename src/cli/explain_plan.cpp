// explain's flags resolved before a model loads.
#include "attnviz/cli/explain_plan.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

std::pair<int, int> parse_cell(const std::string& text) {
  const size_t comma = text.find(',');
  int i = -1, j = -1;
  const auto whole = [](std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 0;
  };
  if (comma == std::string::npos || !whole(std::string_view(text).substr(0, comma), i) ||
      !whole(std::string_view(text).substr(comma + 1), j)) {
    throw usage_error(fmt::format("--cell '{}': write the query and key as I,J (e.g. 5,3)", text));
  }
  return {i, j};
}

}  // namespace

ExplainPlan resolve_explain(const ExplainArgs& a) {
  ExplainPlan plan;
  ExplainOptions& o = plan.options;
  o.format = parse_table_format(a.format);
  if (o.format != TableFormat::text && o.format != TableFormat::markdown &&
      o.format != TableFormat::json) {
    throw usage_error("explain --format: text, markdown or json (the steps are not one table)");
  }
  o.precision = a.precision;
  o.rows = a.rows, o.cols = a.cols;
  if (!a.cell.empty()) o.cell = parse_cell(a.cell);
  if (a.in.selection.head.empty())
    throw usage_error("explain follows one head: give --head H (and --layer L, default 0)");
  plan.in = a.in;
  if (plan.in.selection.layer.empty()) plan.in.selection.layer = "0";
  plan.in.bound = {4096, "explain", "it keeps the head's whole N × N matrices"};
  return plan;
}

}  // namespace attnviz
