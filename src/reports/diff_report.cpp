// The diff report: ranked rows in four formats and the chart of the ranking figure.
#include "attnviz/reports/diff_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/render/png.hpp"
#include "attnviz/reports/stats_charts.hpp"

namespace attnviz {

namespace {
const char* const k_metrics[] = {"jsd", "max", "mean", "entropy"};

std::string number(double v, int precision) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.{}f}", v, precision);
}
std::string signed_number(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::fabs(v) < 0.5 * std::pow(10.0, -precision)) v = 0.0;  // no "-0.0000" from rounding noise
  return fmt::format("{:+.{}f}", v, precision);
}
}  // namespace

void check_diff_metric(const std::string& metric) {
  for (const char* m : k_metrics) {
    if (metric == m) return;
  }
  throw usage_error(
      fmt::format("--sort {}: unknown figure (known: jsd, max, mean, entropy)", metric));
}

double diff_metric(const DiffRow& row, const std::string& metric) {
  if (metric == "max") return row.diff.max_abs;
  if (metric == "mean") return row.diff.mean_abs;
  if (metric == "entropy") return std::fabs(row.diff.entropy_b - row.diff.entropy_a);
  return row.diff.jsd;
}

std::vector<DiffRow> ranked(std::vector<DiffRow> rows, const std::string& sort, int top) {
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    const double x = diff_metric(a, sort), y = diff_metric(b, sort);
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return x > y;
  });
  if (top > 0 && rows.size() > static_cast<size_t>(top)) rows.resize(static_cast<size_t>(top));
  return rows;
}

std::string render_diff(const std::vector<DiffRow>& rows, const DiffReportOptions& o) {
  const std::string title = fmt::format(
      "{} · ranked by {} · JSD in bits per query row, entropy in nats", o.title, o.sort);
  if (o.format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["title"] = o.title;
    j["sort"] = o.sort;
    j["heads"] = nlohmann::json::array();
    const auto value = [](double v) {
      return std::isnan(v) ? nlohmann::ordered_json("nan") : nlohmann::ordered_json(v);
    };
    for (const auto& r : rows) {
      nlohmann::ordered_json h;
      h["map"] = r.map;
      h["head"] = r.id.head;
      h["n_query"] = r.n_query;
      h["n_key"] = r.n_key;
      h["jsd"] = value(r.diff.jsd);
      h["max_abs"] = value(r.diff.max_abs);
      h["mean_abs"] = value(r.diff.mean_abs);
      h["entropy_a"] = value(r.diff.entropy_a);
      h["entropy_b"] = value(r.diff.entropy_b);
      h["rows_compared"] = r.diff.rows_compared;
      h["rows_one_sided"] = r.diff.rows_one_sided;
      j["heads"].push_back(h);
    }
    j["notes"] = o.notes;
    return json_text(j, 2) + '\n';
  }
  const bool csv = o.format == TableFormat::csv;
  const int p = csv ? 9 : o.precision;
  std::vector<std::vector<std::string>> table = {
      {"rank", "map", "head", "jsd", "max |Δ|", "mean |Δ|", "H(A)", "ΔH"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const DiffRow& r = rows[i];
    table.push_back({std::to_string(i + 1), r.map, std::to_string(r.id.head), number(r.diff.jsd, p),
                     number(r.diff.max_abs, p), number(r.diff.mean_abs, p),
                     number(r.diff.entropy_a, p),
                     signed_number(r.diff.entropy_b - r.diff.entropy_a, p)});
  }
  return report_table(title, std::move(table), o.format, [](size_t c) { return c == 1; });
}

std::filesystem::path write_diff_chart(const std::filesystem::path& dir,
                                       const std::vector<DiffRow>& rows, const std::string& sort,
                                       const std::string& title, const FigureFile& file) {
  std::vector<HeadValue> values;
  for (const auto& r : rows) values.push_back({r.id, diff_metric(r, sort)});
  const auto path = figure_path(dir, "diff." + sort, file.format);
  write_figure(path,
               head_grid_chart(values, sort == "jsd", fmt::format("{} · {}", title, sort),
                               figure_scale(file)),
               file);
  return path;
}

}  // namespace attnviz
