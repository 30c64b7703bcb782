// Attention masks: which keys a query may attend to. allowed(i, j) defines them; the attention
// kernel uses the equivalent contiguous key range per row for speed (tested against allowed()).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnviz {

// A 0/1 matrix (rows = queries, columns = keys); 1 = the key may be attended.
using MaskMatrix = Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Mask {
  bool causal = false;  // subsequent_mask: key j is visible to query i iff j <= i
  int n_pad_keys = 0;   // the last n_pad_keys keys are padding (key padding mask)
  int window = 0;       // sliding window (0 = none): key j visible iff |i - j| < window
  std::optional<MaskMatrix> matrix;  // explicit 0/1 mask from a file, [n_query, n_key]

  bool allowed(int64_t i, int64_t j, int64_t n_key) const {
    if (causal && j > i) return false;
    if (j >= n_key - n_pad_keys) return false;
    if (window > 0 && (i - j >= window || j - i >= window)) return false;
    if (matrix && (*matrix)(i, j) == 0) return false;
    return true;
  }
  // The keys [lo, hi) that causal, padding and window leave to query i: always one contiguous
  // range, {0, 0} when none is left (a window past the last key, a query past the keys); a file
  // matrix may hide keys inside it, which allowed() tells. Computed in 64 bits: i + window may pass
  // INT_MAX (--window 2147483647).
  std::pair<int, int> key_range(int64_t i, int64_t n_key) const;
  bool is_none() const { return !causal && n_pad_keys == 0 && window == 0 && !matrix; }
  // "causal", "padding(2)", "window(4)", "file", "causal+padding(2)", or "none".
  std::string describe() const;
};

}  // namespace attnviz
