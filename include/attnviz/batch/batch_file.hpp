// A --batch file (JSON lines, one input per line) of heads, stats and check: its lines, what each
// line gives, one scan for the whole file, shards of it, the progress line and the inputs' notes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/core/error.hpp"

namespace attnviz {

// f(index, line, text) for each non-blank line (blank lines are skipped and are no input); the
// number of inputs. An unreadable file is an Error naming it.
int64_t for_each_batch_line(
    const std::string& file,
    const std::function<void(int64_t index, int64_t line, const std::string& text)>& f);

// What one line gives: exactly one of "text" (a non-empty string), "ids" (whole numbers ≥ 0), or a
// vision model's "image" (a PNG or JPEG) or "pixels" (a .npy), paths read as --image and --pixels
// read them (from the working directory); and optionally "id" (anything, echoed back by the
// caller); any other field is a usage Error.
struct BatchLine {
  std::optional<std::string> text;
  std::vector<uint64_t> ids;
  std::optional<std::string> image, pixels;
};
BatchLine batch_line(const nlohmann::json& line);

// An error of one --batch line, named "FILE line N: …". What a line says is the file's content, so
// an error that would be a usage error from a flag (exit 2) is exit 1 here; other codes stay.
Error batch_line_error(const std::string& file, int64_t line, const Error& e);

// One pass over the file before the inputs run: how many there are, whether any line has "text"
// (then the tokenizer is needed for text, else for labels only), and the FNV-1a hash of their lines
// (for shards to tell one batch from another). A line that is not JSON is an Error naming it.
struct BatchScan {
  int64_t inputs = 0;
  bool any_text = false;
  uint64_t hash = 0;
};
BatchScan scan_batch(const std::string& file);

// --shard K/N → {K, N}; "" → {0, 1}. Usage Error unless 0 ≤ K < N.
std::pair<int, int> parse_shard(const std::string& text);
// The inputs of shard K of N among `total`: those with index mod N = K.
int64_t shard_size(int64_t total, int shard, int shards);

// The inputs' notes (unknown tokens, hash vectors) or warnings: counted, the first kept, reported
// once at the end ("attnviz: note: 3 of 40 inputs have notes; the first, line 7: …").
struct BatchNotes {
  int64_t count = 0;
  std::string first;
  void add(int64_t line, const std::vector<std::string>& notes);
  void report(std::ostream& out, const char* kind,
              int64_t inputs) const;  // kind: "note" or "warning"
};

// "heads: input 35 of 2,500 · 12 s, about 840 s left" on stderr, redrawn at most every 0.2 s, only
// when stderr is a terminal; erased when destroyed.
class BatchProgress {
 public:
  BatchProgress(std::string what, int64_t total);
  ~BatchProgress();
  BatchProgress(const BatchProgress&) = delete;
  BatchProgress& operator=(const BatchProgress&) = delete;
  void step(int64_t done);

 private:
  std::string what_;
  int64_t total_;
  bool on_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace attnviz
