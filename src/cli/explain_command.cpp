// `attnviz explain`: one head's computation step by step, with the run's own numbers.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "attnviz/analysis/head_trace.hpp"
#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/explain_plan.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/reports/explain_report.hpp"

namespace attnviz {

namespace {

void explain_command(const ExplainArgs& a) {
  const ExplainPlan plan = resolve_explain(a);  // every flag checked: nothing has loaded yet
  ExplainOptions o = plan.options;
  const InputArgs& in = plan.in;
  const PreparedRun run = prepare_run(in);  // checks that the layer, site and head exist
  std::vector<HeadId> maps;
  std::string found;
  for (const auto& m : selected_maps(run.selection, run.maps)) {
    found += (found.empty() ? "" : ", ") + m.map_name();
    if (a.stack.empty() || m.stack == a.stack) maps.push_back(m);
  }
  if (maps.size() != 1) {
    throw usage_error(fmt::format(
        "explain follows one map; --layer {}{} selects {} ({}): choose with --site self|cross and "
        "--stack encoder|decoder",
        in.selection.layer, a.stack.empty() ? "" : " --stack " + a.stack, maps.size(),
        found.empty() ? "none" : found));
  }
  HeadId id = maps.front();
  if (run.selection.head.indices().size() != 1) {
    throw usage_error(fmt::format("explain follows one head; --head {} names {}", in.selection.head,
                                  run.selection.head.indices().size()));
  }
  id.head = run.selection.head.indices().front();
  o.model_name = run.model.name;
  const Config& c = run.model.config;
  o.qk_norm = c.qk_norm != QkNorm::none;
  o.qk_norm_whole = c.qk_norm == QkNorm::whole;
  o.rotary_dim = id.site == Site::self ? c.rotary_dim : 0;
  o.fused_qkv_width = id.site == Site::self && c.fused_qkv ? c.d_qk + c.k_rows() + c.v_rows() : 0;
  o.out_projection = c.out_projection;
  // The flag wins over the model's own scale (forward's options_.scale ? … : c.attn_scale).
  if (run.options.scale)
    o.scale_source = "--qk-scale " + in.qk_scale;
  else if (c.attn_scale)
    o.scale_source = c.attn_scale_source;
  HeadTracer tracer(id, static_cast<int>(in.bound.max_tokens));
  run_collecting(run, tracer);
  std::cout << render_explain(tracer.trace(), o);
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "one head's attention step by step with the run's numbers: X, Q/K/V and the head split, "
      "QK^T, the "
      "scale, the mask, the softmax, P·V, the merge; --cell I,J: one score term by term");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--stack", args->stack, "an encoder-decoder's stack: encoder or decoder")
      ->check(CLI::IsMember({"encoder", "decoder"}));
  cmd->add_option("--cell", args->cell,
                  "also the score of query I and key J, term by term through to its weight");
  add_table_format_flag(*cmd, args->format,
                        "text, markdown (for notes) or json (every matrix whole)");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text, markdown)");
  cmd->add_option("--rows", args->rows, "rows of each matrix shown (default 6)")
      ->check(positive_number());
  cmd->add_option("--cols", args->cols, "columns of each matrix shown (default 6)")
      ->check(positive_number());
  cmd->callback([args] { explain_command(*args); });
}

}  // namespace attnviz
