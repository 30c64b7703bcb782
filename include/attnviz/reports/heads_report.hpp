// `attnviz heads`: the detection scores of every head as a ranked table (text, CSV, JSON,
// Markdown) and one layer × head chart per pattern.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/analysis/head_detection.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

struct HeadsReportOptions {
  TableFormat format = TableFormat::text;
  int precision = 3;
  size_t sort = 0;  // the pattern heads are ranked by (index into the patterns), largest first
  int top = 0;      // only the first K heads (0: all)
  std::string model_name;
  std::string input;  // what ran: "repeat:50 probe (seed 0), 100 tokens", …
};

// The heads ranked by the sort pattern (NaN last, ties in forward order), one column per pattern.
// text and markdown: a title line, the table, then per pattern the best head and the runner-up.
std::string render_heads(const std::vector<HeadScores>& heads, const DetectionOptions& detection,
                         const HeadsReportOptions& options);

// A head's fields in a report's JSON: "stack" ("" for a model of one stack), "layer", "site",
// "head".
nlohmann::ordered_json head_id_json(const HeadId& id);

// DIR/heads.{pattern}.png: a layer × head chart of each pattern's scores (written atomically).
std::vector<std::filesystem::path> write_heads_charts(const std::filesystem::path& dir,
                                                      const std::vector<HeadScores>& heads,
                                                      const DetectionOptions& detection,
                                                      const std::string& title,
                                                      const FigureFile& file);

}  // namespace attnviz
