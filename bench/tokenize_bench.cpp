// Tokenization throughput: one tokenizer folder (find_tokenizer) on one text file. Prints the load
// time, the first encode (an empty word cache), the median of the following encodes (the cache
// warm, as in a long-running tokenizer) in MB/s of input text, and the process's peak RSS.
// bench/tokenize_bench.sh runs it once per folder under tests/fixtures/vocab/, so each peak RSS
// is one tokenizer's.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/text_file.hpp"

using namespace attnviz;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: {} TOKENIZER_DIR TEXT_FILE [RUNS]\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    const std::string text = read_text_file(argv[2]);
    const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
    const double mb = static_cast<double>(text.size()) / 1e6;

    auto start = Clock::now();
    const auto tokenizer = find_tokenizer(dir);
    if (!tokenizer) {
      fmt::print(stderr, "{}: no tokenizer attnviz reads\n", dir.string());
      return 1;
    }
    const double load = seconds_since(start);

    start = Clock::now();
    const size_t pieces = tokenizer->encode(text, true).size();
    const double first = seconds_since(start);

    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
      start = Clock::now();
      const size_t again = tokenizer->encode(text, true).size();
      times.push_back(seconds_since(start));
      if (again != pieces) {
        fmt::print(stderr, "run {} gave {} pieces, the first {}\n", r, again, pieces);
        return 1;
      }
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    fmt::print(
        "{}: {:.2f} MB, {} pieces; load {:.2f} s; first encode {:.1f} MB/s; median of {} {:.1f} "
        "MB/s; "
        "peak RSS {:.0f} MiB\n",
        dir.filename().string(), mb, pieces, load, mb / first, runs, mb / median, peak_rss_mib());
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tokenize_bench: {}\n", e.what());
    return 1;
  }
}
