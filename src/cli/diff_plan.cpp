// diff's flags resolved before anything is read or run.
#include "attnviz/cli/diff_plan.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/reports/diff_report.hpp"

namespace attnviz {

namespace {

// The flags of a file diff (the rest are an inline run's).
bool is_diff_file_flag(const std::string& name) {
  for (const char* f :
       {"--sort", "--top", "--format", "--precision", "--png", "--max-pixels", "--figure-format",
        "--dpi", "--font-size", "--size", "--layer", "--site", "--head", "--help"}) {
    if (name == f) return true;
  }
  return false;
}  // difference figures without --top: the six most changed heads

}  // namespace

DiffPlan resolve_diff(const DiffArgs& args) {
  check_diff_metric(args.sort);
  DiffPlan plan;
  plan.files = !args.a.empty() || !args.b.empty();
  if (plan.files && !args.in.model.empty()) {
    throw usage_error(
        "diff takes two --save files or one inline run (-m …) with what differs in B, not both");
  }
  if (plan.files) {
    if (args.b.empty())
      throw usage_error(
          "diff: B is missing: give two --save files, or -m MODEL and what differs in B");
    // Input flags without -m would be ignored: refused instead.
    for (const auto& name : args.given) {
      if (!is_diff_file_flag(name)) {
        throw usage_error(fmt::format(
            "{}: diff of two --save files takes no input flags (they belong to an inline run, "
            "-m …)",
            name));
      }
    }
    return plan;
  }
  if (args.in.model.empty())
    throw usage_error(
        "diff: give two --save files A B, or -m MODEL with an input and what differs in B");
  return plan;
}

}  // namespace attnviz
