// The stats of a batch: each head's figures pooled over the inputs, ranked, in four formats.
#include "attnviz/reports/stats_batch_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/render/png.hpp"
#include "attnviz/reports/heads_report.hpp"
#include "attnviz/reports/stats_charts.hpp"

namespace attnviz {

namespace {

// The figures text and Markdown show besides the sort figure (the whole set is in CSV and JSON).
constexpr const char* k_shown[] = {"max_weight", "entropy",  "saturated",
                                   "sink",       "previous", "diagonal"};

size_t figure_index(const std::vector<std::string>& figures, const std::string& name) {
  const auto it = std::find(figures.begin(), figures.end(), name);
  if (it == figures.end())
    throw usage_error(fmt::format("--sort {}: not one of the figures of this batch", name));
  return static_cast<size_t>(it - figures.begin());
}

std::string number(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", v, precision);
}

nlohmann::ordered_json json_number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(number(v, 0));
}

// Heads in forward order, or ranked by a figure's mean (NaN last, ties in forward order); --top.
std::vector<size_t> order_of(const std::vector<HeadScores>& heads,
                             const std::vector<std::string>& figures,
                             const StatsBatchReportOptions& o) {
  std::vector<size_t> order(heads.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (!o.sort.empty()) {
    const size_t f = figure_index(figures, o.sort);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const double x = heads[a].scores[f], y = heads[b].scores[f];
      if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
      return o.ascending ? x < y : x > y;
    });
  }
  if (o.top > 0 && order.size() > static_cast<size_t>(o.top))
    order.resize(static_cast<size_t>(o.top));
  return order;
}

}  // namespace

std::string render_stats_batch(const std::vector<HeadScores>& heads,
                               const std::vector<std::string>& figures,
                               const StatsBatchReportOptions& o) {
  if (heads.empty()) throw Error("stats: no head was analysed");
  const std::vector<size_t> order = order_of(heads, figures, o);
  const std::string title = fmt::format(
      "{} · {} · each head's figures, mean over the inputs that have them · {}{}", o.model_name,
      o.input, o.settings, o.sort.empty() ? "" : " · ranked by " + o.sort);
  if (o.format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["model"] = o.model_name;
    j["input"] = o.input;
    j["settings"] = o.settings;
    if (!o.sort.empty()) j["sort"] = o.sort;
    j["heads"] = nlohmann::json::array();
    for (const size_t i : order) {
      const HeadScores& h = heads[i];
      nlohmann::ordered_json row = head_id_json(h.id);
      row["items"] = h.items;
      nlohmann::ordered_json by_figure;
      for (size_t f = 0; f < figures.size(); ++f) {
        by_figure[figures[f]] = {{"mean", json_number(h.scores[f])},
                                 {"stddev", json_number(h.stddev[f])},
                                 {"min", json_number(h.min[f])},
                                 {"max", json_number(h.max[f])},
                                 {"inputs", h.counts.empty() ? h.items : h.counts[f]}};
      }
      row["figures"] = by_figure;
      j["heads"].push_back(row);
    }
    return json_text(j, 2) + '\n';
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"rank", "map", "head", "inputs"};
  std::vector<size_t> shown;
  if (o.format == TableFormat::csv) {
    for (size_t f = 0; f < figures.size(); ++f) {
      shown.push_back(f);
      for (const char* part : {"mean", "stddev", "min", "max", "inputs"})
        header.push_back(figures[f] + "." + part);
    }
  } else {
    if (!o.sort.empty()) shown.push_back(figure_index(figures, o.sort));
    for (const char* name : k_shown) {
      const size_t f = figure_index(figures, name);
      if (std::find(shown.begin(), shown.end(), f) == shown.end()) shown.push_back(f);
    }
    for (const size_t f : shown) header.push_back(figures[f]);
  }
  rows.push_back(header);
  for (size_t r = 0; r < order.size(); ++r) {
    const HeadScores& h = heads[order[r]];
    std::vector<std::string> row = {std::to_string(r + 1), h.id.map_name(),
                                    std::to_string(h.id.head), std::to_string(h.items)};
    for (const size_t f : shown) {
      const int64_t inputs = h.counts.empty() ? h.items : h.counts[f];
      if (o.format == TableFormat::csv) {
        for (const double v : {h.scores[f], h.stddev[f], h.min[f], h.max[f]})
          row.push_back(number(v, 9));
        row.push_back(std::to_string(inputs));
      } else {
        row.push_back(std::isnan(h.scores[f]) ? "-"
                                              : number(h.scores[f], o.precision) + " ± " +
                                                    number(h.stddev[f], o.precision));
      }
    }
    rows.push_back(row);
  }
  std::string out = report_table(title, std::move(rows), o.format, [](size_t c) { return c == 1; });
  if (o.format != TableFormat::csv) {
    out += wrap_lines(
        fmt::format(
            "{}± is the standard deviation over the inputs; - where no input has the figure (e.g. "
            "saturation without a row of two or more keys). CSV and JSON hold every figure with "
            "its min, max and count.\n",
            o.format == TableFormat::markdown ? "\n" : ""),
        o.format == TableFormat::text ? o.width : 0);
  }
  return out;
}

std::filesystem::path write_stats_batch_chart(const std::filesystem::path& dir,
                                              const std::vector<HeadScores>& heads,
                                              const std::vector<std::string>& figures,
                                              const std::string& figure, const std::string& title,
                                              const FigureFile& file) {
  const StatsMetric& metric = find_stats_metric(figure, "--chart");
  const size_t f = figure_index(figures, figure);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  std::vector<HeadValue> values;
  for (const auto& h : heads) values.push_back({h.id, h.scores[f]});
  const auto path = figure_path(dir, "stats.batch." + figure, file.format);
  write_figure(
      path,
      head_grid_chart(values, metric.unit_range,
                      fmt::format("{} · {}, mean over the inputs", title, metric.description),
                      figure_scale(file)),
      file);
  return path;
}

}  // namespace attnviz
