// The token table: in memory or read from the mapping in its stored dtype, converted on use.
#include "attnviz/model/token_table.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/tensor.hpp"

namespace attnviz {

TokenTable::TokenTable(Matrix table)
    : matrix_(std::make_shared<const Matrix>(std::move(table))),
      rows_(matrix_->rows()),
      cols_(matrix_->cols()) {}

TokenTable::TokenTable(StoredTensor stored, std::shared_ptr<const void> owner)
    : stored_(std::move(stored)), owner_(std::move(owner)) {
  if (stored_.shape.size() != 2) {
    throw Error(fmt::format("a token table is a matrix [vocab, d_model], not {}",
                            shape_string(stored_.shape)));
  }
  rows_ = stored_.shape[0];
  cols_ = stored_.shape[1];
}

TokenTable::TokenTable(Eigen::Index rows, Eigen::Index cols, RowReader read,
                       std::shared_ptr<const void> owner)
    : read_(std::move(read)), owner_(std::move(owner)), rows_(rows), cols_(cols) {}

RowVector TokenTable::row(Eigen::Index id) const {
  if (matrix_) return matrix_->row(id);
  RowVector r(cols_);
  if (read_) {
    read_(id, 1, r.data());
    return r;
  }
  const size_t width = dtype_bytes(stored_.dtype) * static_cast<size_t>(cols_);
  convert_to_float(stored_.dtype, stored_.data + static_cast<size_t>(id) * width, r.size(),
                   r.data());
  return r;
}

Matrix TokenTable::block(Eigen::Index r0, Eigen::Index n) const {
  if (matrix_) return matrix_->middleRows(r0, n);
  Matrix m(n, cols_);  // row-major: the rows are contiguous, as in the file
  if (read_) {
    read_(r0, n, m.data());
    return m;
  }
  const size_t width = dtype_bytes(stored_.dtype) * static_cast<size_t>(cols_);
  const char* first = stored_.data + static_cast<size_t>(r0) * width;
  convert_to_float(stored_.dtype, first, static_cast<size_t>(m.size()), m.data());
  // A pass over a 128k-token table would otherwise leave all of it resident.
  release_mapped(first, static_cast<size_t>(n) * width);
  return m;
}

Matrix TokenTable::times_transposed(ConstMatrixRef hidden) const {
  Matrix out(hidden.rows(), rows_);
  for (Eigen::Index r0 = 0; r0 < rows_; r0 += k_block_rows) {
    const Eigen::Index n = std::min(k_block_rows, rows_ - r0);
    out.middleCols(r0, n) = hidden * block(r0, n).transpose();
  }
  return out;
}

bool same_values(const TokenTable& a, const TokenTable& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index r0 = 0; r0 < a.rows(); r0 += TokenTable::k_block_rows) {
    const Eigen::Index n = std::min(TokenTable::k_block_rows, a.rows() - r0);
    if (a.block(r0, n) != b.block(r0, n)) return false;
  }
  return true;
}

}  // namespace attnviz
