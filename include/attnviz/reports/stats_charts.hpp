// `stats --png DIR`: a layer × head grid coloured by one statistic, and a histogram of row max
// weights with the model's scale beside the unscaled counterfactual.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/reports/stats_report.hpp"

namespace attnviz {

// One figure per head, for a layer × head chart.
struct HeadValue {
  HeadId id;
  double value = 0.0;
};

// Rows = (stack, layer, site) in the order given, columns = heads; each cell coloured by its value
// (viridis over [0, 1] when unit_range, else over the values' min..max) and labelled with it. Empty
// cells (a head not given) are hatched; non-finite values are grey, labelled "-".
Canvas head_grid_chart(const std::vector<HeadValue>& heads, bool unit_range,
                       const std::string& title, CanvasScale scale = {});

// head_grid_chart of one statistic.
// Rows = (stack, layer, site) in forward order, columns = heads; each cell coloured by metric
// (viridis; shares and normalised figures over [0, 1], others over their own min..max) and labelled
// with its value. Empty cells (a head the selection left out) are hatched.
Canvas stats_grid_chart(const std::vector<HeadStats>& heads, const StatsMetric& metric,
                        const std::string& title, CanvasScale scale = {});
// Bars per bin of max weight (k_histogram_bins over [0, 1]): scaled and unscaled side by side,
// pooled over every head; a dashed line marks the saturation threshold.
Canvas max_weight_histogram_chart(const std::vector<HeadStats>& heads, const StatsOptions& options,
                                  const std::string& title, CanvasScale scale = {});

// Writes DIR/stats.grid.{metric}.png and DIR/stats.max_weight.png (or .svg / .pdf: file.format)
// atomically; returns the paths.
std::vector<std::filesystem::path> write_stats_charts(const std::filesystem::path& dir,
                                                      const std::vector<HeadStats>& heads,
                                                      const StatsMetric& metric,
                                                      const StatsOptions& options,
                                                      const std::string& model_name,
                                                      const FigureFile& file);

}  // namespace attnviz
