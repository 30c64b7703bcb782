// The output of `attnviz stats`: one row per layer × head (sorted / filtered on request), pooled
// rows per layer and overall, as an aligned text table, CSV or JSON (every figure).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

// A figure of a head that can sort the table or colour the chart grid; NaN when the head lacks it.
struct StatsMetric {
  const char* name;         // "entropy", "saturated", "sink", …
  const char* description;  // for --help and chart titles
  double (*value)(const HeadStats& head);
  bool unit_range = false;  // a share or a weight: always in [0, 1] (charts colour over [0, 1])
};
// The metric of that name; usage Error listing the known names otherwise (flag names the option).
const StatsMetric& find_stats_metric(const std::string& name, const std::string& flag);

struct StatsReportOptions {
  TableFormat format = TableFormat::text;
  int precision = 3;
  std::string model_name;
  std::optional<std::string> sort;  // a metric name: largest first
  bool ascending = false;
  std::optional<HeadRole> role;  // keep only heads with this role
  int top = 0;                   // keep the first N heads after sorting (0 = all)
  std::string scale_note;        // text: after the title, when --qk-scale replaced 1/sqrt(d_k)
  int width = 0;  // text: split the columns into blocks this wide, wrap the notes (0 = no limit)
};

// Heads after --role, --sort, --top (pooled rows are computed before this, from every analysed
// head).
std::vector<HeadStats> order_heads(const std::vector<HeadStats>& heads,
                                   const StatsReportOptions& report);

// The whole output of `stats` for the analysed heads (in forward order), ending in a newline.
std::string render_stats(const std::vector<HeadStats>& heads, const StatsOptions& stats,
                         const StatsReportOptions& report);

namespace detail {
// JSON (a nlohmann::ordered_json dump) and CSV renderings (src/analysis/stats_json.cpp).
std::string stats_json(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                       const HeadStats& all, const StatsOptions& stats,
                       const StatsReportOptions& report);
std::string stats_csv(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                      const HeadStats& all, const StatsOptions& stats);
}  // namespace detail

}  // namespace attnviz
