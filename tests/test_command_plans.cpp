// Commands' flags resolved before anything loads (run, rollout, stats, heads, check, explain,
// residual, diff): resolve_* refuses
// the pairings that cannot go together with a usage error (exit 2) and parses the names, without
// reading any input — the model named here does not exist, so a check that needed it would fail
// differently.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "attnviz/cli/check_plan.hpp"
#include "attnviz/cli/diff_plan.hpp"
#include "attnviz/cli/explain_plan.hpp"
#include "attnviz/cli/heads_plan.hpp"
#include "attnviz/cli/residual_plan.hpp"
#include "attnviz/cli/run_plan.hpp"
#include "attnviz/cli/stats_plan.hpp"
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

// The usage error a command's resolve gives, or "" when it resolves.
template <typename Args, typename Resolve>
std::string refusal_of(const Args& a, Resolve resolve) {
  try {
    (void)resolve(a);
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
    return e.what();
  }
  return "";
}
std::string refusal(const RunArgs& a) {
  return refusal_of(a, resolve_run);
}
std::string refusal(const StatsArgs& a) {
  return refusal_of(a, resolve_stats);
}
std::string refusal(const HeadsArgs& a) {
  return refusal_of(a, resolve_heads);
}
std::string refusal(const CheckArgs& a) {
  return refusal_of(a, resolve_check);
}
std::string refusal(const ExplainArgs& a) {
  return refusal_of(a, resolve_explain);
}
std::string refusal(const ResidualArgs& a) {
  return refusal_of(a, resolve_residual);
}
std::string refusal(const DiffArgs& a) {
  return refusal_of(a, resolve_diff);
}

template <typename Args>
Args with_model() {
  Args a;
  a.in.model = "/nonexistent/model.safetensors";
  return a;
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

TEST_CASE("stats plan: --batch's pairings and the names of figures, before a model loads") {
  auto a = with_model<StatsArgs>();
  a.in.target.text = "hello";
  a.sort = "entropy";
  a.role = "sink";
  const StatsPlan plan = resolve_stats(a);
  CHECK(!plan.batch);
  CHECK(plan.report.order.sort == "entropy");
  a.sort = "entropie";
  CHECK(contains(refusal(a), "entropie"));
  a.sort.clear();
  a.role = "sinks";
  CHECK(contains(refusal(a), "--role 'sinks': unknown role"));
  a.role.clear();
  a.batch.items = "items.jsonl";
  CHECK(contains(refusal(a), "--items and --shard go with --batch"));

  auto b = with_model<StatsArgs>();
  b.batch.file = "inputs.jsonl";  // never opened by the plan
  CHECK(resolve_stats(b).batch);
  b.role = "sink";
  CHECK(contains(refusal(b), "--role with --batch"));
  b.role.clear();
  b.in.target.text = "hello";
  CHECK(contains(refusal(b), "--batch reads the inputs from its file"));
  b.in.target.text.clear();
  b.chart = "nope";
  CHECK(!refusal(b).empty());
}

TEST_CASE("heads plan: patterns named, their names unique, the sort found, before a model loads") {
  TempDir dir;
  std::ofstream(dir / "mine.txt") << "1 0\n1 1\n";
  auto a = with_model<HeadsArgs>();
  a.in.target.probe = "repeat:4";
  const HeadsPlan defaults = resolve_heads(a);
  CHECK(defaults.patterns.size() == 4);
  a.patterns = {"induction", (dir / "mine.txt").string()};
  a.sort = "mine";  // a pattern file is named by its stem
  CHECK(resolve_heads(a).report.sort == 1);
  a.sort = "sink";
  CHECK(contains(refusal(a), "--sort sink: not one of the patterns scored"));
  a.sort.clear();
  a.patterns = {"induction", "induction"};
  CHECK(contains(refusal(a), "a pattern named 'induction' is given twice"));
  a.patterns = {"inductoin"};
  CHECK(contains(refusal(a), "unknown pattern 'inductoin'"));
  a.patterns.clear();
  a.measure = "l2";
  CHECK(contains(refusal(a), "unknown error measure 'l2'"));
  a.measure = "mul";
  a.batch.shard = "0/2";
  CHECK(contains(refusal(a), "--items and --shard go with --batch"));

  // A batch takes built-in patterns only: a pattern file fits one input's length.
  auto b = with_model<HeadsArgs>();
  b.batch.file = "inputs.jsonl";
  b.patterns = {(dir / "mine.txt").string()};
  CHECK(contains(refusal(b), "unknown pattern"));
  b.patterns = {"induction"};
  CHECK(resolve_heads(b).batch);
}

TEST_CASE("check, explain and residual plans: their pairings before a model loads") {
  auto c = with_model<CheckArgs>();
  c.in.target.text = "hello";
  c.shard = "1/2";
  CHECK(contains(refusal(c), "--shard goes with --batch"));
  c.batch = "inputs.jsonl";
  CHECK(contains(refusal(c), "--batch reads the inputs from its file"));
  c.in.target.text.clear();
  c.format = "json";
  const CheckPlan plan = resolve_check(c);
  CHECK(plan.batch);
  CHECK(plan.json);
  CHECK(plan.shard == std::pair{1, 2});
  c.shard = "2/2";
  CHECK(contains(refusal(c), "--shard '2/2'"));

  auto e = with_model<ExplainArgs>();
  e.in.target.text = "hello";
  CHECK(contains(refusal(e), "explain follows one head: give --head H"));
  e.in.selection.head = "1";
  e.cell = "5;3";
  CHECK(contains(refusal(e), "--cell '5;3': write the query and key as I,J"));
  e.cell = "5,3";
  e.format = "csv";
  CHECK(contains(refusal(e), "explain --format: text, markdown or json"));
  e.format = "markdown";
  const ExplainPlan ep = resolve_explain(e);
  CHECK(ep.options.cell == std::pair{5, 3});
  CHECK(ep.in.selection.layer == "0");
  CHECK(ep.in.bound.max_tokens == 4096);

  auto r = with_model<ResidualArgs>();
  r.in.selection.site = "self";
  CHECK(contains(refusal(r), "--head and --site do not apply"));
  r.in.selection.site.clear();
  r.format = "json";
  CHECK(resolve_residual(r) == TableFormat::json);
}

TEST_CASE("diff plan: two files or one inline run, and nothing that would be ignored") {
  DiffArgs d;
  CHECK(contains(refusal(d), "give two --save files A B, or -m MODEL"));
  d.a = "a.safetensors";
  CHECK(contains(refusal(d), "B is missing"));
  d.b = "b.safetensors";
  CHECK(resolve_diff(d).files);
  d.given = {"--sort", "--text"};
  CHECK(contains(refusal(d), "--text: diff of two --save files takes no input flags"));
  d.given = {"--sort", "--layer"};
  CHECK(refusal(d).empty());
  d.sort = "jsdd";
  CHECK(!refusal(d).empty());
  d.sort = "jsd";
  d.in.model = "m";
  CHECK(contains(refusal(d), "not both"));
  d.a.clear(), d.b.clear(), d.given.clear();
  CHECK(!resolve_diff(d).files);
}
