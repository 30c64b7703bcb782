// Pooling attention maps block by block into a grid of at most max_cells per side.
#include "attnviz/render/pooled_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {
// max that keeps a NaN once seen (std::max drops it), so a cell holding a NaN weight is drawn as
// non-finite instead of as its other weights.
void max_into(float& m, float v) {
  if (std::isnan(v) || v > m) m = v;
}
}  // namespace

PoolMode parse_pool_mode(const std::string& name) {
  if (name == "max") return PoolMode::max;
  if (name == "mean") return PoolMode::mean;
  throw usage_error(fmt::format("unknown pooling '{}' (known: max, mean)", name));
}

const char* pool_mode_name(PoolMode mode) { return mode == PoolMode::max ? "max" : "mean"; }

PoolGrid PoolGrid::for_map(int n_query, int n_key, int max_cells) {
  if (n_query <= 0 || n_key <= 0 || max_cells <= 0) {
    throw Error(fmt::format("pool grid: map [{}, {}] with at most {} cells per side", n_query,
                            n_key, max_cells));
  }
  PoolGrid g;
  g.n_query = n_query;
  g.n_key = n_key;
  const int longest = std::max(n_query, n_key);
  g.pool = (longest + max_cells - 1) / max_cells;
  g.cells_q = (n_query + g.pool - 1) / g.pool;
  g.cells_k = (n_key + g.pool - 1) / g.pool;
  return g;
}

CountMatrix allowed_counts(const Mask& mask, const PoolGrid& grid) {
  CountMatrix counts = CountMatrix::Zero(grid.cells_q, grid.cells_k);
  for (int i = 0; i < grid.n_query; ++i) {
    for (int j = 0; j < grid.n_key; ++j) {
      if (mask.allowed(i, j, grid.n_key)) ++counts(i / grid.pool, j / grid.pool);
    }
  }
  return counts;
}

PooledMap::PooledMap(const PoolGrid& grid)
    : grid_(grid), max_(Matrix::Zero(grid.cells_q, grid.cells_k)) {
  if (grid.pool > 1) sum_ = Matrix::Zero(grid.cells_q, grid.cells_k);
}

void PooledMap::add(int row_begin, ConstMatrixRef probs) {
  if (probs.cols() != grid_.n_key || row_begin < 0 || row_begin + probs.rows() > grid_.n_query) {
    throw Error(fmt::format("pooled map: block rows [{}, {}) × {} keys do not fit a [{}, {}] map",
                            row_begin, row_begin + probs.rows(), probs.cols(), grid_.n_query,
                            grid_.n_key));
  }
  if (grid_.pool == 1) {
    max_.middleRows(row_begin, probs.rows()) = probs;
    return;
  }
  const int p = grid_.pool;
  for (Eigen::Index r = 0; r < probs.rows(); ++r) {
    const Eigen::Index ci = (row_begin + r) / p;
    for (Eigen::Index j = 0; j < probs.cols(); ++j) {
      const float v = probs(r, j);
      max_into(max_(ci, j / p), v);
      sum_(ci, j / p) += v;
    }
  }
}

Matrix PooledMap::values(PoolMode mode, const CountMatrix& counts) const {
  if (mode == PoolMode::max || grid_.pool == 1) return max_;
  Matrix out = Matrix::Zero(grid_.cells_q, grid_.cells_k);
  for (int i = 0; i < grid_.cells_q; ++i) {
    for (int j = 0; j < grid_.cells_k; ++j) {
      if (counts(i, j) > 0) out(i, j) = sum_(i, j) / static_cast<float>(counts(i, j));
    }
  }
  return out;
}

PooledMap PooledMap::coarsened(int factor) const {
  PoolGrid g = grid_;
  g.pool = grid_.pool * factor;
  g.cells_q = (grid_.cells_q + factor - 1) / factor;
  g.cells_k = (grid_.cells_k + factor - 1) / factor;
  PooledMap out(g);
  if (g.pool > 1 && out.sum_.size() == 0) out.sum_ = Matrix::Zero(g.cells_q, g.cells_k);
  for (int i = 0; i < grid_.cells_q; ++i) {
    for (int j = 0; j < grid_.cells_k; ++j) {
      max_into(out.max_(i / factor, j / factor), max_(i, j));
      if (g.pool > 1) out.sum_(i / factor, j / factor) += grid_.pool == 1 ? max_(i, j) : sum_(i, j);
    }
  }
  return out;
}

CountMatrix coarsen_counts(const CountMatrix& counts, int factor) {
  CountMatrix out = CountMatrix::Zero((counts.rows() + factor - 1) / factor,
                                      (counts.cols() + factor - 1) / factor);
  for (Eigen::Index i = 0; i < counts.rows(); ++i) {
    for (Eigen::Index j = 0; j < counts.cols(); ++j) out(i / factor, j / factor) += counts(i, j);
  }
  return out;
}

}  // namespace attnviz
