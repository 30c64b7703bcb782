// Pooling attention maps block by block into a grid of at most max_cells per side.
#include "attnviz/render/pooled_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

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

const char* pool_mode_name(PoolMode mode) {
  return mode == PoolMode::max ? "max" : "mean";
}

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

PooledMap::PooledMap(const PoolGrid& grid, bool keep_sums)
    : grid_(grid), max_(Matrix::Zero(grid.cells_q, grid.cells_k)), keep_sums_(keep_sums) {
  if (grid.pool > 1) {
    row_max_.assign(static_cast<size_t>(grid.n_key), 0.0f);
    if (keep_sums) {
      sum_ = Matrix::Zero(grid.cells_q, grid.cells_k);
      row_sum_.assign(static_cast<size_t>(grid.n_key), 0.0f);
    }
  }
}

namespace {
// Keys [lo, hi) of query row i that the mask's ranges allow (a file matrix narrows nothing here:
// its zeros are read like any other weight).
std::pair<int, int> key_range(const Mask* mask, int i, int n_key) {
  return mask ? mask->key_range(i, n_key) : std::pair{0, n_key};
}
}  // namespace

void PooledMap::add(int row_begin, ConstMatrixRef probs, const Mask* mask) {
  if (probs.cols() != grid_.n_key || row_begin < 0 || row_begin + probs.rows() > grid_.n_query) {
    throw Error(fmt::format("pooled map: block rows [{}, {}) × {} keys do not fit a [{}, {}] map",
                            row_begin, row_begin + probs.rows(), probs.cols(), grid_.n_query,
                            grid_.n_key));
  }
  if (grid_.pool == 1) {
    max_.middleRows(row_begin, probs.rows()) = probs;
    return;
  }
  for (Eigen::Index r = 0; r < probs.rows(); ++r) {
    const int i = row_begin + static_cast<int>(r);
    const auto [lo, hi] = key_range(mask, i, grid_.n_key);
    add_row(probs.data() + r * probs.outerStride(), lo, hi);
    // The last row of a cell row (or of the map) completes it.
    if ((i + 1) % grid_.pool == 0 || i + 1 == grid_.n_query) flush_row(i / grid_.pool);
  }
}

void PooledMap::add_row(const float* row, int lo, int hi) {
  float* m = row_max_.data();
  for (int j = lo; j < hi; ++j) {
    const float v = row[j];
    m[j] = (v > m[j] || v != v) ? v : m[j];  // max_into, written so that it vectorises
  }
  if (keep_sums_) {
    float* s = row_sum_.data();
    for (int j = lo; j < hi; ++j) s[j] += row[j];
  }
  if (lo < hi) {
    row_lo_ = row_hi_ > row_lo_ ? std::min(row_lo_, lo) : lo;
    row_hi_ = std::max(row_hi_, hi);
  }
}

namespace {
// cell[c] = max(cell[c], keys[c·P … c·P + P)) for the whole cells c in [c0, c1): P a constant, so
// the compiler vectorises the strided loads (pools of 2–4 are every map of 1,025–4,096 tokens at
// the default size).
template <int P>
void max_runs(float* cell, const float* keys, int c0, int c1) {
  for (int c = c0; c < c1; ++c) {
    float mx = cell[c];
    for (int k = 0; k < P; ++k) {
      const float v = keys[c * P + k];
      mx = (v > mx || v != v) ? v : mx;  // max_into
    }
    cell[c] = mx;
  }
}
}  // namespace

void PooledMap::flush_row(int cell_row) {
  const int p = grid_.pool;
  float* m = row_max_.data();
  float* cell_max = max_.row(cell_row).data();
  // Keys [row_lo_, row_hi_) fall into cells [c_lo, c_hi); the whole ones in between go by runs.
  const int c_lo = row_lo_ / p, c_hi = (row_hi_ + p - 1) / p;
  const int whole_lo = (row_lo_ + p - 1) / p, whole_hi = row_hi_ / p;
  const auto partial = [&](int c) {
    for (int j = std::max(row_lo_, c * p); j < std::min(row_hi_, (c + 1) * p); ++j)
      max_into(cell_max[c], m[j]);
  };
  if (whole_lo < whole_hi && p >= 2 && p <= 4) {
    for (int c = c_lo; c < whole_lo; ++c) partial(c);
    if (p == 2) max_runs<2>(cell_max, m, whole_lo, whole_hi);
    if (p == 3) max_runs<3>(cell_max, m, whole_lo, whole_hi);
    if (p == 4) max_runs<4>(cell_max, m, whole_lo, whole_hi);
    for (int c = whole_hi; c < c_hi; ++c) partial(c);
  } else {
    for (int c = c_lo; c < c_hi; ++c) partial(c);
  }
  std::fill(m + row_lo_, m + row_hi_, 0.0f);
  if (keep_sums_) {  // key by key, in key order
    float* s = row_sum_.data();
    float* cell_sum = sum_.row(cell_row).data();
    for (int j = row_lo_; j < row_hi_; ++j) cell_sum[j / p] += s[j];
    std::fill(s + row_lo_, s + row_hi_, 0.0f);
  }
  row_lo_ = row_hi_ = 0;
}

Matrix PooledMap::values(PoolMode mode, const CountMatrix& counts) const {
  if (mode == PoolMode::max || grid_.pool == 1) return max_;
  if (!keep_sums_) throw Error("pooled map: mean pooling of a map that kept the max only");
  Matrix out = Matrix::Zero(grid_.cells_q, grid_.cells_k);
  for (int i = 0; i < grid_.cells_q; ++i) {
    for (int j = 0; j < grid_.cells_k; ++j) {
      if (counts(i, j) > 0) out(i, j) = sum_(i, j) / static_cast<float>(counts(i, j));
    }
  }
  return out;
}

Matrix PooledMap::take_values(PoolMode mode, const CountMatrix& counts) && {
  if (mode == PoolMode::max || grid_.pool == 1) return std::move(max_);
  return values(mode, counts);
}

PooledMap PooledMap::coarsened(int factor) const {
  PoolGrid g = grid_;
  g.pool = grid_.pool * factor;
  g.cells_q = (grid_.cells_q + factor - 1) / factor;
  g.cells_k = (grid_.cells_k + factor - 1) / factor;
  PooledMap out(g, keep_sums_);
  if (keep_sums_ && g.pool > 1 && out.sum_.size() == 0)
    out.sum_ = Matrix::Zero(g.cells_q, g.cells_k);
  const Matrix& sums = grid_.pool == 1 ? max_ : sum_;
  // The max first down each column of a band of `factor` rows (element-wise, so it vectorises),
  // then across each run of `factor` columns; a NaN anywhere in a cell still wins.
  std::vector<float> column_max(static_cast<size_t>(grid_.cells_k));
  for (int oi = 0; oi < g.cells_q; ++oi) {
    const int i0 = oi * factor, i1 = std::min(grid_.cells_q, i0 + factor);
    std::copy_n(max_.row(i0).data(), grid_.cells_k, column_max.begin());
    for (int i = i0 + 1; i < i1; ++i) {
      const float* row = max_.row(i).data();
      for (int j = 0; j < grid_.cells_k; ++j) {
        const float v = row[j];
        float& m = column_max[static_cast<size_t>(j)];
        m = (v > m || v != v) ? v : m;  // max_into, written so that it vectorises
      }
    }
    for (int oj = 0; oj < g.cells_k;
         ++oj) {  // a run of `factor` cells at a time: no division per cell
      const int j1 = std::min(grid_.cells_k, (oj + 1) * factor);
      float& m = out.max_(oi, oj);
      for (int j = oj * factor; j < j1; ++j) max_into(m, column_max[static_cast<size_t>(j)]);
      if (keep_sums_ && g.pool > 1) {
        for (int i = i0; i < i1; ++i)
          out.sum_(oi, oj) += sums.row(i).segment(oj * factor, j1 - oj * factor).sum();
      }
    }
  }
  return out;
}

CountMatrix coarsen_counts(const CountMatrix& counts, int factor) {
  CountMatrix out = CountMatrix::Zero((counts.rows() + factor - 1) / factor,
                                      (counts.cols() + factor - 1) / factor);
  for (Eigen::Index i = 0; i < counts.rows(); ++i) {
    for (Eigen::Index oj = 0; oj < out.cols(); ++oj) {
      const Eigen::Index j0 = oj * factor, j1 = std::min<Eigen::Index>(counts.cols(), j0 + factor);
      out(i / factor, oj) += counts.row(i).segment(j0, j1 - j0).sum();
    }
  }
  return out;
}

}  // namespace attnviz
