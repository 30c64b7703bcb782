// The stderr progress line: counts heads as they end and estimates the rest from the mean so far.
#include "attnviz/sinks/progress_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attnviz {

double ProgressSink::steady_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string progress_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

ProgressSink::ProgressSink(std::ostream& out, bool terminal, const MapList& maps, Clock clock,
                           double min_interval)
    : out_(out), terminal_(terminal), clock_(std::move(clock)), min_interval_(min_interval) {
  for (const HeadId& id : maps.maps) {
    const bool seen = std::any_of(layers_.begin(), layers_.end(), [&](const HeadId& l) {
      return l.stack == id.stack && l.layer == id.layer;
    });
    if (!seen) layers_.push_back(id);
  }
  total_heads_ = static_cast<int>(maps.maps.size()) * maps.n_heads;
  if (terminal_) start_ = clock_();
}

ProgressSink::~ProgressSink() {
  clear();
}  // an error ends the run: its message starts clean

void ProgressSink::begin_map(const MapInfo& info) {
  if (!terminal_) return;
  const auto it = std::find_if(layers_.begin(), layers_.end(), [&](const HeadId& l) {
    return l.stack == info.id.stack && l.layer == info.id.layer;
  });
  const auto index = it - layers_.begin() + 1;
  layer_text_ = fmt::format("{}layer {}/{}", info.id.stack.empty() ? "" : info.id.stack + " ",
                            index, layers_.size());
}

void ProgressSink::end_map(const MapInfo& /*info*/) {
  if (!terminal_) return;
  ++done_;
  const double now = clock_();
  if (now - last_draw_ < min_interval_ && done_ < total_heads_) return;
  last_draw_ = now;
  const double elapsed = now - start_;
  const int total = std::max(total_heads_, done_);
  std::string line = fmt::format("attnviz: {} · heads {}/{} · {} elapsed", layer_text_, done_,
                                 total, progress_duration(elapsed));
  if (done_ < total) {
    line += fmt::format(" · ETA {}", progress_duration(elapsed / done_ * (total - done_)));
  }
  draw(line);
}

void ProgressSink::finish() {
  clear();
}

void ProgressSink::draw(const std::string& line) {
  // Columns, not bytes: the line holds "·" (2 bytes, 1 column) and digits only.
  size_t columns = 0;
  for (const char c : line) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  out_ << '\r' << line << std::string(shown_ > columns ? shown_ - columns : 0, ' ') << std::flush;
  shown_ = columns;
}

void ProgressSink::clear() {
  if (shown_ == 0) return;
  out_ << '\r' << std::string(shown_, ' ') << '\r' << std::flush;
  shown_ = 0;
}

}  // namespace attnviz
