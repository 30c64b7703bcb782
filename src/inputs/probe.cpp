// Probe inputs: distinct random ids by rejection, shuffled with Fisher–Yates on core's Random.
#include "attnviz/inputs/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "attnviz/core/error.hpp"
#include "attnviz/core/random.hpp"

namespace attnviz {

namespace {
constexpr int k_max_probe = 1'000'000;

// Uniform in [0, n) without modulo bias (Lemire's rejection would do; n is far below 2^64, so
// rejecting the top partial range is exact and simple).
uint64_t below(Random& rng, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    const uint64_t x = rng.next_u64();
    if (x < limit) return x % n;
  }
}
}  // namespace

ProbeSpec parse_probe(const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  ProbeSpec spec;
  if (kind == "repeat") {
    spec.kind = ProbeKind::repeat;
  } else if (kind == "duplicate") {
    spec.kind = ProbeKind::duplicate;
  } else {
    throw usage_error(
        fmt::format("--probe '{}': unknown probe (known: repeat:N, duplicate:N)", text));
  }
  const std::string count = colon == std::string::npos ? "" : text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), spec.n);
  if (count.empty() || ec != std::errc() || end != count.data() + count.size() || spec.n < 1 ||
      spec.n > k_max_probe) {
    throw usage_error(
        fmt::format("--probe '{}': N must be a whole number from 1 to {} (e.g. {}:50)", text,
                    k_max_probe, kind));
  }
  return spec;
}

uint64_t parse_probe_seed(const std::string& text) {
  uint64_t seed = 0;
  if (text.empty()) return seed;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw usage_error(
        fmt::format("--seed '{}': a whole number from 0 to 18446744073709551615", text));
  }
  return seed;
}

std::vector<int64_t> probe_ids(const ProbeSpec& spec, int64_t vocab_size,
                               const std::vector<int64_t>& prefix,
                               const std::vector<int64_t>& suffix, uint64_t seed) {
  std::unordered_set<int64_t> taken(prefix.begin(), prefix.end());
  taken.insert(suffix.begin(), suffix.end());
  int64_t reserved = 0;
  for (const int64_t id : taken) reserved += id >= 0 && id < vocab_size ? 1 : 0;
  if (vocab_size - reserved < spec.n) {
    throw usage_error(
        fmt::format("--probe: {} distinct tokens asked for, but the vocabulary has {} ({} of them "
                    "special tokens the probe leaves out)",
                    spec.n, vocab_size, reserved));
  }
  Random rng(seed);
  std::vector<int64_t> first;
  first.reserve(static_cast<size_t>(spec.n));
  while (static_cast<int>(first.size()) < spec.n) {
    const auto id = static_cast<int64_t>(below(rng, static_cast<uint64_t>(vocab_size)));
    if (taken.insert(id).second) first.push_back(id);
  }
  std::vector<int64_t> second = first;
  if (spec.kind == ProbeKind::duplicate) {
    for (size_t i = second.size(); i > 1; --i) std::swap(second[i - 1], second[below(rng, i)]);
  }
  std::vector<int64_t> ids = prefix;
  ids.insert(ids.end(), first.begin(), first.end());
  ids.insert(ids.end(), second.begin(), second.end());
  ids.insert(ids.end(), suffix.begin(), suffix.end());
  return ids;
}

}  // namespace attnviz
