// stats' flags resolved before a model loads.
#include "attnviz/cli/stats_plan.hpp"

#include <fmt/format.h>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "batch_input.hpp"

namespace attnviz {

namespace {

StatsReportOptions report_options(const StatsArgs& a) {
  StatsReportOptions r;
  r.format = parse_table_format(a.format);
  r.precision = a.precision;
  if (!a.sort.empty()) r.order.sort = find_stats_metric(a.sort, "--sort").name;
  r.order.ascending = a.ascending;
  if (!a.role.empty()) {
    r.order.role = parse_role(a.role);
    if (!r.order.role) {
      throw usage_error(
          fmt::format("--role '{}': unknown role (known: broad, sink, previous-token, self, "
                      "concentrated, mixed)",
                      a.role));
    }
  }
  r.order.top = a.top;
  if (r.format == TableFormat::text) r.width = resolved_width(a.width);
  return r;
}

}  // namespace

StatsPlan resolve_stats(const StatsArgs& a) {
  StatsPlan plan;
  plan.batch = !a.batch.file.empty();
  if (plan.batch) {
    detail::refuse_inputs_beside_batch(a.in);
    if (!a.role.empty()) {
      throw usage_error(
          "--role with --batch: a head's role can differ from input to input; sort by a figure "
          "instead (--sort sink, --sort previous, …)");
    }
    if (!a.batch.items.empty()) check_output_file(a.batch.items, "--items");
    if (!a.sort.empty()) find_stats_metric(a.sort, "--sort");
    find_stats_metric(a.chart, "--chart");
    parse_table_format(a.format);
    return plan;
  }
  if (!a.batch.items.empty() || !a.batch.shard.empty())
    throw usage_error("--items and --shard go with --batch");
  plan.report = report_options(a);
  if (!a.png_dir.empty()) find_stats_metric(a.chart, "--chart");
  return plan;
}

}  // namespace attnviz
