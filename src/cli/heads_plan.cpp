// heads' flags resolved before a model loads.
#include "attnviz/cli/heads_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "batch_input.hpp"

namespace attnviz {

namespace {

bool is_file(const std::string& name) {
  std::error_code ec;
  return std::filesystem::is_regular_file(name, ec);
}

}  // namespace

HeadsPlan resolve_heads(const HeadsArgs& a) {
  HeadsPlan plan;
  plan.batch = !a.batch.file.empty();
  plan.report.format = parse_table_format(a.format);
  plan.report.precision = a.precision;
  plan.report.top = a.top;
  plan.detection.measure = parse_error_measure(a.measure);
  plan.detection.exclude_bos = a.exclude_bos;
  plan.detection.exclude_current = a.exclude_current;
  plan.patterns = a.patterns.empty() ? std::vector<std::string>(std::begin(k_builtin_patterns),
                                                                std::end(k_builtin_patterns))
                                     : a.patterns;
  if (plan.batch) {
    detail::refuse_inputs_beside_batch(a.in);
    if (!a.batch.items.empty()) check_output_file(a.batch.items, "--items");
  } else if (!a.batch.items.empty() || !a.batch.shard.empty()) {
    throw usage_error("--items and --shard go with --batch");
  }
  // Each pattern's name: a built-in one, or a file's stem (a batch refuses files: one pattern
  // file fits one length). Named in the report and the items files, so two of one name are refused.
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& p : plan.patterns) {
    const bool builtin = std::find(std::begin(k_builtin_patterns), std::end(k_builtin_patterns),
                                   p) != std::end(k_builtin_patterns);
    names.push_back(builtin || plan.batch || !is_file(p)
                        ? builtin_pattern(p).name
                        : std::filesystem::path(p).stem().string());
    if (!seen.insert(names.back()).second) {
      throw usage_error(
          fmt::format("--pattern {}: a pattern named '{}' is given twice", p, names.back()));
    }
  }
  plan.report.sort = sort_index(a.sort, names);
  return plan;
}

size_t sort_index(const std::string& sort, const std::vector<std::string>& names) {
  if (sort.empty()) return 0;
  const auto at = std::find(names.begin(), names.end(), sort);
  if (at == names.end())
    throw usage_error(fmt::format("--sort {}: not one of the patterns scored", sort));
  return static_cast<size_t>(at - names.begin());
}

}  // namespace attnviz
