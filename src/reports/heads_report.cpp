// The head-detection report: ranked rows of scores in four formats, and a chart per pattern.
#include "attnviz/reports/heads_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/render/png.hpp"
#include "attnviz/reports/stats_charts.hpp"

namespace attnviz {

namespace {

constexpr double k_little_attention_left = 0.001;  // per row, after the exclusions

std::string measure_text(const DetectionOptions& d) {
  std::string s = d.measure == ErrorMeasure::mul
                      ? "share of attention on the pattern (mul: Σ A·P / Σ A)"
                      : "1 − Σ|A − P| / N (abs)";
  if (d.exclude_bos) s += ", key 0 left out";
  if (d.exclude_current) s += ", own key left out";
  return s;
}

std::string number(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", v, precision);
}

// Indices of `heads` ranked by pattern `sort`, largest first; NaN last; ties keep forward order.
std::vector<size_t> ranking(const std::vector<HeadScores>& heads, size_t sort) {
  std::vector<size_t> order(heads.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double x = heads[a].scores[sort], y = heads[b].scores[sort];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return x > y;
  });
  return order;
}

std::string head_name(const HeadId& id) {
  return fmt::format("{} head {}", id.map_name(), id.head);
}

// Per pattern: the best head and the runner-up, so the margin is read at a glance.
std::string leaders(const std::vector<HeadScores>& heads, const DetectionOptions& d, int precision,
                    bool markdown) {
  std::string out;
  for (size_t p = 0; p < d.patterns.size(); ++p) {
    const auto order = ranking(heads, p);
    std::string line = fmt::format("{}: {} {}", d.patterns[p].name, head_name(heads[order[0]].id),
                                   number(heads[order[0]].scores[p], precision));
    if (order.size() > 1) {
      line += fmt::format(", next {} {}", head_name(heads[order[1]].id),
                          number(heads[order[1]].scores[p], precision));
    }
    out += (markdown ? "- " + markdown_field(line) : printable_text(line)) + '\n';
  }
  return out;
}

}  // namespace

std::string render_heads(const std::vector<HeadScores>& heads, const DetectionOptions& d,
                         const HeadsReportOptions& o) {
  if (heads.empty()) throw Error("heads: no self-attention map was scored");
  if (o.sort >= d.patterns.size()) throw Error("heads: the sort pattern is not among the patterns");
  std::vector<size_t> order = ranking(heads, o.sort);
  if (o.top > 0 && order.size() > static_cast<size_t>(o.top))
    order.resize(static_cast<size_t>(o.top));
  const std::string title = fmt::format("{} · {} · {} · ranked by {}", o.model_name, o.input,
                                        measure_text(d), d.patterns[o.sort].name);
  if (o.format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["model"] = o.model_name;
    j["input"] = o.input;
    j["measure"] = d.measure == ErrorMeasure::mul ? "mul" : "abs";
    j["exclude_bos"] = d.exclude_bos;
    j["exclude_current"] = d.exclude_current;
    j["sort"] = d.patterns[o.sort].name;
    j["patterns"] = nlohmann::json::array();
    for (const auto& p : d.patterns) j["patterns"].push_back(p.name);
    j["heads"] = nlohmann::json::array();
    for (const size_t i : order) {
      const HeadScores& h = heads[i];
      nlohmann::ordered_json row = head_id_json(h.id);
      row["tokens"] = h.n;
      row["attention_left"] = h.attention_left;
      nlohmann::ordered_json scores;
      for (size_t p = 0; p < d.patterns.size(); ++p) {
        if (std::isfinite(h.scores[p]))
          scores[d.patterns[p].name] = h.scores[p];
        else
          scores[d.patterns[p].name] =
              number(h.scores[p], 0);  // "nan", "inf": JSON has no such numbers
      }
      row["scores"] = scores;
      if (h.items > 0) {  // pooled over a batch: scores are means
        row["items"] = h.items;
        for (const auto& [key, values] :
             {std::pair{"stddev", &h.stddev}, {"min", &h.min}, {"max", &h.max}}) {
          nlohmann::ordered_json by_pattern;
          for (size_t p = 0; p < d.patterns.size(); ++p) {
            const double v = (*values)[p];
            by_pattern[d.patterns[p].name] =
                std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(number(v, 0));
          }
          row[key] = by_pattern;
        }
      }
      j["heads"].push_back(row);
    }
    return json_text(j, 2) + '\n';
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"rank", "map", "head"};
  for (const auto& p : d.patterns) header.push_back(p.name);
  rows.push_back(header);
  for (size_t r = 0; r < order.size(); ++r) {
    const HeadScores& h = heads[order[r]];
    std::vector<std::string> row = {std::to_string(r + 1), h.id.map_name(),
                                    std::to_string(h.id.head)};
    for (const double s : h.scores)
      row.push_back(number(s, o.format == TableFormat::csv ? 9 : o.precision));
    rows.push_back(row);
  }
  const bool markdown = o.format == TableFormat::markdown;
  std::string out = report_table(title, std::move(rows), o.format, [](size_t c) { return c == 1; });
  if (o.format == TableFormat::csv) return out;
  out += markdown ? "\n" : "";
  out += leaders(heads, d, o.precision, markdown);
  // A share of almost nothing: say so, since the ratio alone looks like any other.
  std::string starved;
  for (const auto& h : heads) {
    if (h.attention_left < k_little_attention_left)
      starved += (starved.empty() ? "" : ", ") + head_name(h.id);
  }
  if (!starved.empty() &&
      d.measure == ErrorMeasure::mul) {  // abs compares cells: no share to speak of
    out += fmt::format(
        "{}: less than {}% of the attention is left after the exclusions, so the shares above are "
        "of almost nothing\n",
        starved, 100 * k_little_attention_left);
  }
  return out;
}

nlohmann::ordered_json head_id_json(const HeadId& id) {
  nlohmann::ordered_json row;
  row["stack"] =
      id.stack;  // "" for a model of one stack, as run's and check's JSON: every row has the field
  row["layer"] = id.layer;
  row["site"] = site_name(id.site);
  row["head"] = id.head;
  return row;
}

std::vector<std::filesystem::path> write_heads_charts(const std::filesystem::path& dir,
                                                      const std::vector<HeadScores>& heads,
                                                      const DetectionOptions& d,
                                                      const std::string& title,
                                                      const FigureFile& file) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  std::vector<std::filesystem::path> paths;
  for (size_t p = 0; p < d.patterns.size(); ++p) {
    std::vector<HeadValue> values;
    for (const auto& h : heads) values.push_back({h.id, h.scores[p]});
    // Coloured over the scores' own range, and titled so: a pattern's best possible score can be
    // far below 1 (an induction head's mul score on repeat:N is at most N/(2N+1)), and on a fixed
    // [0, 1] scale a perfect head would look half as strong.
    const Canvas chart =
        head_grid_chart(values, false,
                        fmt::format("{} · {} · {} · colour: lowest to highest score", title,
                                    d.patterns[p].name, measure_text(d)),
                        figure_scale(file));
    paths.push_back(figure_path(dir, "heads." + d.patterns[p].name, file.format));
    write_figure(paths.back(), chart, file);
  }
  return paths;
}

}  // namespace attnviz
