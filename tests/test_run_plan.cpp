// `run`'s flags resolved before anything loads: resolve_run refuses the pairings that cannot go
// together with a usage error (exit 2) and parses the names, without reading any input — the
// model named here does not exist, so a check that needed it would fail differently.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "attnviz/cli/run_plan.hpp"
#include "attnviz/core/error.hpp"
#include "run_cli.hpp"  // contains
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::TempDir;

namespace {

RunArgs args() {
  RunArgs a;
  a.in.model = "/nonexistent/model.safetensors";
  a.in.target.text = "hello";
  return a;
}

// The usage error resolve_run gives, or "" when it resolves.
std::string refusal(const RunArgs& a) {
  try {
    (void)resolve_run(a);
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("run plan: names are parsed into their kinds, the model never opened") {
  RunArgs a = args();
  a.table = "scores";
  a.format = "markdown";
  a.log_scale = true;
  a.pool = "mean";
  a.save_dtype = "f16";
  a.cmap = "magma";
  const RunPlan plan = resolve_run(a);
  CHECK(plan.table == TableKind::scores);
  CHECK(plan.format == TableFormat::markdown);
  CHECK(plan.colour_scale == ColourScale::log);
  CHECK(plan.pool == PoolMode::mean);
  CHECK(plan.save_dtype == SaveDtype::f16);
  CHECK(plan.cmap == ColormapId::magma);
  CHECK(plan.in.bound.command == "run");
  CHECK(resolve_run(args()).colour_scale == ColourScale::auto_scale);
}

TEST_CASE("run plan: flags that cannot go together are refused before a model loads") {
  RunArgs csv = args();
  csv.format = "csv";
  csv.table = "both";
  CHECK(contains(refusal(csv), "--format csv writes one table"));

  RunArgs rollout = args();
  rollout.rollout = true;
  rollout.table = "scores";
  CHECK(contains(refusal(rollout), "rollout maps are products of attention weights"));
  rollout.table = "probs";
  CHECK(resolve_run(rollout).in.bound.command == "rollout");  // its own, lower token bound

  RunArgs diverging = args();
  diverging.cmap = "diverging";
  CHECK(contains(refusal(diverging), "a diverging map is for signed values"));

  RunArgs panel = args();
  panel.panel = "L0H1";
  CHECK(contains(refusal(panel), "--panel draws into the --png folder"));
  panel.png_dir = "figures";
  panel.panel = "L0X1";
  CHECK(!refusal(panel).empty());  // parsed now, not after the run
  panel.panel = "L0H1";
  CHECK(resolve_run(panel).panel.size() == 1);
  panel.rollout = true;
  CHECK(contains(refusal(panel), "rollout has one map per layer"));

  RunArgs png = args();
  png.png_given = true;
  CHECK(contains(refusal(png), "--png: the folder name is empty"));
}

TEST_CASE("run plan: the page never replaces an input, the --save file or a non-.html file") {
  TempDir dir;
  RunArgs a = args();
  a.html_given = true;
  a.html = (dir / "view.txt").string();
  CHECK(contains(refusal(a), "the page's name must end in .html or .htm"));
  a.html = (dir / "view.html").string();
  a.save = a.html;
  CHECK(contains(refusal(a), "the same file as --save"));
  a.save.clear();
  std::ofstream(dir / "input.html") << "text";
  a.in.target.text.clear();
  a.in.target.text_file = (dir / "input.html").string();
  a.html = a.in.target.text_file;
  CHECK(contains(refusal(a), "the run reads this file"));
  a.html = (dir / "view.html").string();
  CHECK(refusal(a).empty());
}
