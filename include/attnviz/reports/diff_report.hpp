// `attnviz diff`: two runs' maps compared head by head, as a ranked table (text, CSV, JSON,
// Markdown), difference figures (B − A on the diverging colour map, centred on 0) and a layer ×
// head chart of the ranking figure.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/analysis/map_diff.hpp"
#include "attnviz/event/head_id.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

struct DiffRow {
  HeadId id;        // stack, layer, site, head as the saved map names them
  std::string map;  // the saved map's name ("layer3.self", "rollout.layer1.self", …)
  int n_query = 0, n_key = 0;
  HeadDiff diff;
};

// The figures a diff is ranked by: "jsd", "max", "mean", "entropy" (|H(b) − H(a)|).
double diff_metric(const DiffRow& row, const std::string& metric);
void check_diff_metric(const std::string& metric);  // usage Error naming the known ones

struct DiffReportOptions {
  TableFormat format = TableFormat::text;
  int precision = 4;
  std::string sort = "jsd";
  int top = 0;        // 0: every head
  std::string title;  // "A vs B"
  std::vector<std::string>
      notes;  // printed under the table (labels that differ, maps in one file only)
};

// Rows ranked by options.sort, largest first (NaN last, ties in file order), at most top.
std::vector<DiffRow> ranked(std::vector<DiffRow> rows, const std::string& sort, int top);
std::string render_diff(const std::vector<DiffRow>& ranked_rows, const DiffReportOptions& options);

// DIR/diff.{sort}.png: a layer × head chart of the ranking figure over every row.
std::filesystem::path write_diff_chart(const std::filesystem::path& dir,
                                       const std::vector<DiffRow>& rows, const std::string& sort,
                                       const std::string& title, const FigureFile& file);

}  // namespace attnviz
