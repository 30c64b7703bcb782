// One forward pass into a collector, with the progress line and the NaN/inf warnings.
#include "attnviz/cli/collect.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "attnviz/analysis/non_finite.hpp"
#include "attnviz/event/sink_list.hpp"
#include "attnviz/sinks/progress_sink.hpp"

namespace attnviz {

void run_collecting(const PreparedRun& run, AttentionSink& collector) {
  auto monitor = std::make_unique<NonFiniteMonitor>();
  const NonFiniteMonitor& non_finite = *monitor;
  auto progress = std::make_unique<ProgressSink>(std::cerr, isatty(STDERR_FILENO) != 0, run.maps);
  ProgressSink& progress_line = *progress;
  SinkList sinks;
  sinks.add(std::make_unique<ForwardingSink>(collector));
  sinks.add(std::move(monitor));
  sinks.add(std::move(progress));
  const ForwardResult result = forward(run.model, run.inputs, run.options, &sinks);
  progress_line.finish();  // erased before any warning
  for (const auto& w : result.warnings) std::cerr << "attnviz: warning: " << w << '\n';
  std::cerr << non_finite.warnings();
}

}  // namespace attnviz
