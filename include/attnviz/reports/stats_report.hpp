// The output of `attnviz stats`: one row per layer × head (sorted / filtered on request), pooled
// rows per layer and overall, as an aligned text table, CSV or JSON (every figure).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

// text wrapped at spaces to `width` display columns (0 = as it is), continuation lines indented by
// two; a word wider than the width stays whole.
std::string wrap_lines(const std::string& text, int width);

struct StatsReportOptions {
  TableFormat format = TableFormat::text;
  int precision = 3;
  std::string model_name;
  HeadOrder order;         // --role, --sort, --top
  std::string scale_note;  // text: after the title, when --qk-scale replaced 1/sqrt(d_k)
  int width = 0;  // text: split the columns into blocks this wide, wrap the notes (0 = no limit)
};

// The whole output of `stats` for the analysed heads (in forward order), ending in a newline.
std::string render_stats(const std::vector<HeadStats>& heads, const StatsOptions& stats,
                         const StatsReportOptions& report);

namespace detail {
// JSON (a nlohmann::ordered_json dump) and CSV renderings (src/reports/stats_json.cpp).
std::string stats_json(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                       const HeadStats& all, const StatsOptions& stats,
                       const StatsReportOptions& report);
std::string stats_csv(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                      const HeadStats& all, const StatsOptions& stats);
}  // namespace detail

}  // namespace attnviz
