// `attnviz align`'s flags resolved before a model loads.
#include "attnviz/cli/align_plan.hpp"

#include <fmt/format.h>

#include <cmath>

#include "attnviz/core/error.hpp"

namespace attnviz {

AlignPlan resolve_align(const AlignArgs& a) {
  AlignPlan p;
  p.in = a.in;
  if (!a.batch.empty() && (a.in.source.given() || a.in.target.given())) {
    throw usage_error("--batch gives each pair's texts: no --source-* or target input beside it");
  }
  if (a.batch.empty() && (!a.in.source.has_text() || !a.in.target.has_text())) {
    throw usage_error(
        "align links words: give the source as --source-text (or --source-text-file) and the "
        "target as --text (or --text-file), or pairs with --batch");
  }
  if (!a.in.selection.site.empty() && a.in.selection.site != "cross") {
    throw usage_error(fmt::format("--site {}: align reads cross-attention", a.in.selection.site));
  }
  if (a.threshold) {
    if (!(*a.threshold > 0.0f && *a.threshold <= 1.0f)) {
      throw usage_error(fmt::format("--threshold {}: expected a weight in (0, 1]", *a.threshold));
    }
    p.rule = AlignRule{AlignRule::Kind::threshold, *a.threshold};
  }
  if (a.rows != "predicting" && a.rows != "input") {
    throw usage_error(fmt::format("--rows {}: expected predicting or input", a.rows));
  }
  p.predicting = a.rows == "predicting";
  p.gold = a.gold;
  p.batch = a.batch;
  p.format = parse_table_format(a.format);
  if (p.format == TableFormat::csv && p.gold.empty()) {
    throw usage_error("--format csv is the --gold table's: give --gold, or text or json");
  }
  return p;
}

}  // namespace attnviz
