// `run` and `rollout` in three steps: parse (RunArgs, as CLI11 fills them), resolve (RunPlan: every
// pairing of flags checked and every name parsed before a model loads), run (run_command). The
// resolved outputs become the list of sinks in one place, build_run_outputs.
#pragma once

#include <memory>
#include <vector>

#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/event/head_id.hpp"
#include "attnviz/event/sink_list.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/colour_scale.hpp"
#include "attnviz/render/pooled_map.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "attnviz/sinks/terminal_sink.hpp"

namespace attnviz {

class PngSink;
class OverlaySink;
class HtmlSink;
class SaveSink;
class CheckCollector;
class NonFiniteMonitor;

// What the flags ask for, parsed and checked against each other; the input flags stay as given
// (prepare_run resolves them against the model).
struct RunPlan {
  InputArgs in;  // with the command's token bound (rollout's is lower)
  ColormapId cmap = ColormapId::viridis;
  TableKind table = TableKind::probs;
  TableFormat format = TableFormat::text;
  ColourScale colour_scale = ColourScale::auto_scale;
  PoolMode pool = PoolMode::max;
  SaveDtype save_dtype = SaveDtype::f32;
  std::vector<HeadId> panel;  // --panel's heads (checked against the model's maps later)
};

// Every check that needs no model: usage errors (exit 2) for flags that cannot go together, and
// the output places (--save, --html, --png) checked before a model loads, so a bad one costs
// nothing. Reads no input file.
RunPlan resolve_run(const RunArgs& args);

// The outputs of a run, as built from the plan: the sinks the shown maps go to, and the ones whose
// results are reported after the forward pass.
struct RunOutputs {
  SinkList sinks;
  const TerminalSink* view = nullptr;
  TableStyle table_style;  // the terminal's (format, precision, colour, width): --logits' too
  PngSink* png = nullptr;
  HtmlSink* html = nullptr;
  SaveSink* save = nullptr;
  OverlaySink* overlay = nullptr;          // --overlay
  CheckCollector* check = nullptr;         // --check
  NonFiniteMonitor* non_finite = nullptr;  // without --check: NaN / inf warnings
};

// The one place the resolved output options become sinks (terminal, --png, --html, --save, and
// --check or the NaN monitor). Refuses what needs the model to tell (a csv table over several
// maps, --logits on a model without an unembedding, a panel head the model lacks).
RunOutputs build_run_outputs(const RunArgs& args, const RunPlan& plan, const PreparedRun& run);

}  // namespace attnviz
