// A progress line on stderr while the model runs (layer, heads done / total, elapsed, ETA), drawn
// only when stderr is a terminal, so logs and pipes stay clean.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "attnviz/event/selection.hpp"

namespace attnviz {

// Fed by begin_map / end_map of every head forward computes (selected or not: all of them cost
// time). Each update is "\r" + the line, padded over the previous one; finish() (or destruction,
// on an error) erases it with "\r", spaces, "\r", so nothing of it stays before later output.
// Writes to stderr only: the heatmaps and tables on stdout are never interleaved with it.
class ProgressSink : public AttentionSink {
 public:
  using Clock = std::function<double()>;  // seconds since any fixed point
  // terminal: whether `out` is a terminal (isatty(STDERR_FILENO)); false: the sink prints nothing.
  // min_interval: seconds between redraws (the last head always draws).
  ProgressSink(std::ostream& out, bool terminal, const MapList& maps, Clock clock = steady_seconds,
               double min_interval = 0.1);
  ~ProgressSink() override;
  ProgressSink(const ProgressSink&) = delete;
  ProgressSink& operator=(const ProgressSink&) = delete;

  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& /*block*/) override {}
  void end_map(const MapInfo& info) override;
  void finish() override;

  static double steady_seconds();

 private:
  void draw(const std::string& line);
  void clear();

  std::ostream& out_;
  bool terminal_;
  std::vector<HeadId> layers_;  // distinct (stack, layer) in the order forward runs them
  int total_heads_ = 0;
  int done_ = 0;
  Clock clock_;
  double min_interval_;
  double start_ = 0, last_draw_ = -1e300;
  std::string layer_text_;  // "layer 3/12" of the map in progress
  size_t shown_ = 0;        // columns of the line on screen (0 = none)
};

// "42 s", "3 min 05 s", "1 h 02 min": elapsed and remaining times of the progress line.
std::string progress_duration(double seconds);

}  // namespace attnviz
