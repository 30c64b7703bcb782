// Reading a --batch file (JSON lines, one input per line) for heads and check: the lines, each
// line's input, the tokenizer the file needs, and the progress line on stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/run_args.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz::detail {

// f(index, line, text) for each non-blank line (blank lines are skipped and are no input); the
// number of inputs. An unreadable file is an Error naming it.
int64_t for_each_batch_line(
    const std::string& file,
    const std::function<void(int64_t index, int64_t line, const std::string& text)>& f);

// The input of one line: exactly one of "text" (a non-empty string) or "ids" (whole numbers ≥ 0),
// and optionally "id" (anything, echoed back); any other field is a usage Error.
SequenceFlags batch_sequence(const nlohmann::json& line);

// An error of one --batch line, named "FILE line N: …". What a line says is the file's content, so
// an error that would be a usage error from a flag (exit 2) is exit 1 here; other codes stay.
Error batch_line_error(const std::string& file, int64_t line, const Error& e);

// One pass over the file before the inputs run: how many there are, the tokenizer use they need
// (text if any line has "text", else labels for ids), and the FNV-1a hash of their lines (for
// shards to tell one batch from another). A line that is not JSON is an Error naming it.
struct BatchScan {
  int64_t inputs = 0;
  TokenizerUse tokenizer_use = TokenizerUse::labels;
  uint64_t hash = 0;
};
BatchScan scan_batch(const std::string& file);

// --batch FILE and --shard K/N on a subcommand; `what` says what is done to each input, `then` what
// the output is (both for the help text).
void add_batch_flags(CLI::App& cmd, std::string& file, std::string& shard, const std::string& what,
                     const std::string& then);
// A batch reads its inputs from its file: input flags beside it, and a --mask file (it fits one
// length), are usage Errors.
void refuse_inputs_beside_batch(const InputArgs& in);

// The inputs' notes (unknown tokens, hash vectors) or warnings: counted, the first kept, reported
// once at the end ("attnviz: note: 3 of 40 inputs have notes; the first, line 7: …").
struct BatchNotes {
  int64_t count = 0;
  std::string first;
  void add(int64_t line, const std::vector<std::string>& notes);
  void report(std::ostream& out, const char* kind,
              int64_t inputs) const;  // kind: "note" or "warning"
};

// Everything besides an --items header's own fields that decides a batch's numbers, as one line:
// shards of one run agree on it (the weights themselves are named by the model's configuration line
// only; run_batch adds the batch's own hash).
std::string batch_settings(const InputArgs& in, const PreparedRun& run);

// --shard K/N → {K, N}; "" → {0, 1}. Usage Error unless 0 ≤ K < N.
std::pair<int, int> parse_shard(const std::string& text);
// The inputs of shard K of N among `total`: those with index mod N = K.
int64_t shard_size(int64_t total, int shard, int shards);

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

}  // namespace attnviz::detail
