// The figures of a head that can sort the stats table or colour its chart, and the selection of
// heads by --role, --sort and --top.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"

namespace attnviz {

// A figure of a head that can sort the table or colour the chart grid; NaN when the head lacks it.
struct StatsMetric {
  const char* name;         // "entropy", "saturated", "sink", …
  const char* description;  // for --help and chart titles
  double (*value)(const HeadStats& head);
  bool unit_range = false;  // a share or a weight: always in [0, 1] (charts colour over [0, 1])
};
// Every metric, in the order the stats report and the batch items list them.
std::span<const StatsMetric> all_stats_metrics();
// The metric of that name; usage Error listing the known names otherwise (flag names the option).
const StatsMetric& find_stats_metric(const std::string& name, const std::string& flag);

// --role, --sort, --top.
struct HeadOrder {
  std::optional<std::string> sort;  // a metric name: largest first
  bool ascending = false;
  std::optional<HeadRole> role;  // keep only heads with this role
  int top = 0;                   // keep the first N heads after sorting (0 = all)
};

// Heads after --role, --sort, --top (pooled rows are computed before this, from every analysed
// head).
std::vector<HeadStats> order_heads(const std::vector<HeadStats>& heads, const HeadOrder& order);

}  // namespace attnviz
