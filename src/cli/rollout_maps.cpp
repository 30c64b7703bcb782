// Rollout maps as events: each layer's R, labelled and masked, sent to run's outputs in row blocks.
#include "attnviz/cli/rollout_maps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "attnviz/analysis/rollout.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

HeadSelection rollout_selection(const HeadSelection& selection) {
  HeadSelection s = selection;
  s.head = {};
  return s;
}

TokenBound rollout_bound(const RunArgs& a) {
  const RolloutOptions limits;
  if (a.flow) {
    return {static_cast<size_t>(limits.max_flow_tokens), "rollout --flow",
            "one maximum flow per token pair, about L·N⁴ steps"};
  }
  return {static_cast<size_t>(limits.max_tokens), "rollout", "it holds three N × N matrices"};
}

std::unique_ptr<AttentionSink> rollout_into(AttentionSink& outputs, const RunArgs& a,
                                            const PreparedRun& run) {
  if (run.selection.site == Site::cross) {
    throw usage_error(
        "--site cross: rollout follows self-attention only (a target × source map has no identity "
        "to add)");
  }
  bool any_self = false;
  for (const auto& id : run.maps.maps) any_self |= id.site == Site::self;
  if (!any_self)
    throw usage_error(fmt::format(
        "{} makes no self-attention map on this input: nothing to roll out", run.model.name));
  RolloutOptions o;
  o.combine = parse_head_combine(a.combine);
  o.residual = a.residual;
  o.discard_ratio = a.discard_ratio;
  o.vit_explain_division = a.vit_explain;
  if (a.vit_explain && (a.flow || a.residual != 0.5f)) {
    throw usage_error(
        "--vit-explain-division is vit-explain's rollout, whose residual is 0.5 and "
        "which has no flow");
  }
  if (a.flow && a.discard_ratio > 0)
    throw usage_error(
        "--discard-ratio is vit-explain's rollout: attention flow keeps every weight");
  if (run.selection.head.indices().size() > 1) {
    throw usage_error("rollout --head rolls out one head (without --head: the heads combined)");
  }
  if (run.selection.head) o.head = run.selection.head.indices().front();
  o.flow = a.flow;
  o.flow_layer = run.selection.layer;  // flow is costly: only the layers shown
  o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string method = a.flow ? "attention flow" : "rollout";
  const std::string options =
      (o.discard_ratio > 0 ? fmt::format(", {:g} discarded", o.discard_ratio) : std::string()) +
      (o.vit_explain_division ? ", vit-explain's division" : "");
  const std::string kind =
      (o.head ? fmt::format("{}: head {}, residual {:g}", method, *o.head, o.residual)
              : fmt::format("{}: {} of heads, residual {:g}", method, a.combine, o.residual)) +
      options;
  const std::string map = a.flow ? "flow" : "rollout";
  const int block_rows = std::max(1, run.options.block_rows);
  auto emit = [&outputs, kind, map, block_rows, o](const RolloutMap& m) {
    MapInfo info;
    info.id = HeadId{m.stack.empty() ? map : m.stack + "." + map, m.layer, Site::self, 0};
    info.n_heads = 1;
    info.n_query = info.n_key = static_cast<int>(m.values->rows());
    info.d_head = m.source->d_head;
    info.kind = kind;
    if (keeps_sink_out(*m.source, o)) {
      info.kind += ", the sink logits' share left out (rows sum below 1)";
      info.rows_below_one = true;
    }
    auto mask = std::make_shared<Mask>();
    mask->causal = m.source->mask->causal;
    info.mask = mask;
    info.query_labels = m.source->query_labels;
    info.key_labels = m.source->key_labels;
    outputs.begin_map(info);
    for (int r0 = 0; r0 < info.n_query; r0 += block_rows) {
      const int r1 = std::min(info.n_query, r0 + block_rows);
      const auto rows = m.values->middleRows(r0, r1 - r0);
      outputs.on_block(
          AttentionBlock(info, r0, r1, rows, rows));  // no scores: the sinks read probs
    }
    outputs.end_map(info);
  };
  return std::make_unique<RolloutCollector>(o, emit);
}

}  // namespace attnviz
