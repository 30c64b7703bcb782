// Tests of the stderr progress line: the exact bytes for a 2-layer × 2-head run on a fake terminal
// and a fake clock, nothing at all when stderr is not a terminal.
#include <doctest/doctest.h>

#include <sstream>

#include "attnviz/sinks/progress_sink.hpp"

using namespace attnviz;

namespace {
MapList two_layers() {
  MapList maps;
  maps.n_heads = 2;
  for (int layer = 0; layer < 2; ++layer) {
    HeadId id;
    id.layer = layer;
    maps.maps.push_back(id);
  }
  return maps;
}

// Runs the four heads as forward would, one clock second per head.
void run_heads(ProgressSink& sink) {
  for (int layer = 0; layer < 2; ++layer) {
    for (int head = 0; head < 2; ++head) {
      MapInfo info;
      info.id.layer = layer;
      info.id.head = head;
      info.n_heads = 2;
      sink.begin_map(info);
      sink.end_map(info);
    }
  }
  sink.finish();
}
}  // namespace

TEST_CASE(
    "progress: a 2-layer × 2-head run on a terminal, redrawn in place and erased at the end") {
  std::ostringstream err;
  double now = 100.0;
  {
    ProgressSink sink(
        err, true, two_layers(), [&now] { return now++; }, 0.0);
    run_heads(sink);
  }
  // Clock: 100 at the start, 101..104 at the heads' ends; ETA = elapsed / done × heads left.
  const std::string l1 = "attnviz: layer 1/2 · heads 1/4 · 1 s elapsed · ETA 3 s";
  const std::string l2 = "attnviz: layer 1/2 · heads 2/4 · 2 s elapsed · ETA 2 s";
  const std::string l3 = "attnviz: layer 2/2 · heads 3/4 · 3 s elapsed · ETA 1 s";
  const std::string l4 = "attnviz: layer 2/2 · heads 4/4 · 4 s elapsed";  // 10 columns shorter
  CHECK(err.str() == "\r" + l1 + "\r" + l2 + "\r" + l3 + "\r" + l4 + std::string(10, ' ') + "\r" +
                         std::string(44, ' ') + "\r");
}

TEST_CASE("progress: redraws are throttled, the last head always drawn") {
  std::ostringstream err;
  double now = 0.0;
  ProgressSink sink(
      err, true, two_layers(), [&now] { return now += 0.01; }, 10.0);
  run_heads(sink);
  const std::string out = err.str();
  CHECK(out.find("heads 1/4") != std::string::npos);  // the first head: 0.01 s after -inf
  CHECK(out.find("heads 2/4") == std::string::npos);
  CHECK(out.find("heads 4/4") != std::string::npos);
  CHECK(out.substr(out.size() - 1) == "\r");  // erased
}

TEST_CASE("progress: nothing at all when stderr is not a terminal, nor on destruction") {
  std::ostringstream err;
  {
    ProgressSink sink(err, false, two_layers(), [] { return 0.0; });
    run_heads(sink);
  }
  CHECK(err.str().empty());
}

TEST_CASE("progress: durations in seconds, minutes and hours") {
  CHECK(progress_duration(0.4) == "0 s");
  CHECK(progress_duration(59.4) == "59 s");
  CHECK(progress_duration(125) == "2 min 05 s");
  CHECK(progress_duration(3725) == "1 h 02 min");
}
