// Every command that runs a model states the longest input it takes and refuses a longer one before
// embedding or computing anything: exit 1 when a file's content is too long, 2 when a flag's is.
// Each run is under `timeout`, so a command that starts working instead fails here in seconds, not
// hours.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

// A file of n token ids (all 0: samples/mha embeds ids as hash vectors, so any id is one).
std::string ids_file(const TempDir& dir, size_t n) {
  const auto path = dir / ("ids" + std::to_string(n) + ".txt");
  std::ofstream out(path);
  for (size_t i = 0; i < n; ++i) out << "0 ";
  return path.string();
}

}  // namespace

TEST_CASE(
    "input bounds: each command refuses a file of more tokens than it takes, exit 1, at once") {
  TempDir dir;
  const std::string past_65536 = ids_file(dir, 70000), past_8192 = ids_file(dir, 8193),
                    past_4096 = ids_file(dir, 4097), past_128 = ids_file(dir, 129);
  const struct {
    std::string args, file, message;
  } cases[] = {
      {"run", past_65536,
       "70000 tokens; run takes at most 65536 (every head's N × N map is computed"},
      {"stats", past_65536, "70000 tokens; stats takes at most 65536"},
      {"check", past_65536, "70000 tokens; check takes at most 65536"},
      {"heads", past_65536, "70000 tokens; heads takes at most 65536"},
      {"residual", past_65536, "70000 tokens; residual takes at most 65536"},
      {"diff --b-ids '1'", past_65536, "70000 tokens; diff takes at most 65536"},
      {"rollout", past_8192,
       "8193 tokens; rollout takes at most 8192 (it holds three N × N matrices)"},
      {"rollout --flow", past_128,
       "129 tokens; rollout --flow takes at most 128 (one maximum flow per token pair"},
      {"explain --head 0", past_4096,
       "4097 tokens; explain takes at most 4096 (it keeps the head's whole N × N matrices)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_attnviz(c.args + " -m samples/mha --ids '" + c.file + "'", "", "timeout 30");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.err, "attnviz: error: " + c.file + ": " + c.message), r.err);
    CHECK(seconds < 5);
  }
}

TEST_CASE("input bounds: a flag's input over the bound is a usage error, exit 2") {
  TempDir dir;
  const std::string model =
      (dir / "llama").string();  // byte-level tokenizer: one token per byte, after BOS
  REQUIRE(run_attnviz("init --arch llama -o '" + model +
                      "' --d-model 8 --heads 2 --kv-heads 1 --layers 1")
              .exit_code == 0);
  const auto r =
      run_attnviz("explain --head 0 -m '" + model + "' --text '" + std::string(5000, 'a') + "'", "",
                  "timeout 30");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "attnviz: error: --text: 5001 tokens; explain takes at most 4096"),
                r.err);
  std::string list;
  for (int i = 0; i < 8193; ++i) list += "0 ";
  const auto ids = run_attnviz("rollout -m samples/mha --ids '" + list + "'", "", "timeout 30");
  CHECK(ids.exit_code == 2);
  CHECK_MESSAGE(contains(ids.err, "attnviz: error: --ids: 8193 tokens; rollout takes at most 8192"),
                ids.err);
}
