// Human-readable description of a mask, for titles, warnings and saved metadata.
#include "attnviz/event/mask.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace attnviz {

std::string Mask::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "+") + part; };
  if (causal) add("causal");
  if (n_pad_keys > 0) add(fmt::format("padding({})", n_pad_keys));
  if (window > 0) add(fmt::format("window({})", window));
  if (matrix) add("file");
  return out.empty() ? "none" : out;
}

std::pair<int, int> Mask::key_range(int64_t i, int64_t n_key) const {
  int64_t lo = 0, hi = n_key - n_pad_keys;
  if (causal) hi = std::min(hi, i + 1);
  if (window > 0) {
    lo = std::max(lo, i - window + 1);
    hi = std::min(hi, i + window);
  }
  if (hi <= lo) return {0, 0};
  return {static_cast<int>(lo), static_cast<int>(hi)};  // within [0, n_key]
}

}  // namespace attnviz
