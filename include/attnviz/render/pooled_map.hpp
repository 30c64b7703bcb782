// Long maps shrunk as their row blocks arrive: each drawn cell covers pool × pool tokens, so a
// figure of a 4,096-token map never holds the 4,096² weights (memory is O(cells), not O(N²)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"

namespace attnviz {

enum class PoolMode { max, mean };
PoolMode parse_pool_mode(const std::string& name);  // "max" / "mean"; usage Error otherwise
const char* pool_mode_name(PoolMode mode);

// Per-cell counts of allowed (query, key) pairs, int32 [cells_q, cells_k].
using CountMatrix = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The cells of a pooled map. One factor for both axes, so a cell is square in tokens too:
// pool = ceil(max(n_query, n_key) / max_cells); the last cell of an axis may cover fewer tokens.
struct PoolGrid {
  int n_query = 0, n_key = 0;
  int pool = 1;
  int cells_q = 0, cells_k = 0;
  static PoolGrid for_map(int n_query, int n_key, int max_cells);
};

// How many pairs of each cell the mask allows (computed once per mask and shared by the heads).
CountMatrix allowed_counts(const Mask& mask, const PoolGrid& grid);

// Accumulates one head's probabilities block by block. Masked probabilities are 0 and allowed
// ones ≥ 0, so the max over a cell's pairs is the max over its allowed pairs and the sum is the
// allowed sum: no per-pair mask test while accumulating.
class PooledMap {
 public:
  // keep_sums = false keeps the max only (half the work), for a caller that pools by max:
  // values(mean) then refuses.
  explicit PooledMap(const PoolGrid& grid, bool keep_sums = true);
  // probs rows [row_begin, row_begin + probs.rows()) of the map. With the map's mask, the keys a
  // causal / padding / window mask hides (0 by the event's contract) are skipped, not read.
  void add(int row_begin, ConstMatrixRef probs, const Mask* mask = nullptr);
  // [cells_q, cells_k]: the max, or sum / allowed count (mean over allowed pairs); cells with no
  // allowed pair are 0.
  Matrix values(PoolMode mode, const CountMatrix& counts) const;
  // values(), moving the cells out where they are the max (the map is spent afterwards).
  Matrix take_values(PoolMode mode, const CountMatrix& counts) &&;
  // This map pooled further by `factor` (max of maxes, sum of sums) with counts to match.
  PooledMap coarsened(int factor) const;
  const PoolGrid& grid() const { return grid_; }

 private:
  void add_row(const float* row, int lo, int hi);
  void flush_row(int cell_row);

  PoolGrid grid_;
  Matrix max_;  // [cells_q, cells_k]
  Matrix sum_;  // [cells_q, cells_k]; empty when pool == 1 (then sum = max) or without sums
  bool keep_sums_ = true;
  // The cell row in progress, per key: the pool rows of a cell are reduced elementwise first
  // (a loop the compiler vectorises), then each run of pool keys once per cell row.
  std::vector<float> row_max_, row_sum_;
  int row_lo_ = 0, row_hi_ = 0;  // keys touched since the last flush
};

// counts summed over factor × factor blocks (the counts of PooledMap::coarsened).
CountMatrix coarsen_counts(const CountMatrix& counts, int factor);

}  // namespace attnviz
