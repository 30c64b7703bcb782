// The token table [N, D] and an untied lm_head: a float matrix in memory, or a view of the mapped
// file in its stored dtype (BF16, F16, F32, F64, or a GGUF type read through a row reader),
// converted a row or a block of rows at a time.
#pragma once

#include <functional>
#include <memory>

#include "attnviz/core/matrix.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz {

class TokenTable {
 public:
  // Rows converted at a time by products and same_values: 4096 × 2048 floats = 32 MB.
  static constexpr Eigen::Index k_block_rows = 4096;

  explicit TokenTable(Matrix table);
  // A stored [rows, cols] tensor; `owner` keeps its mapping alive as long as any copy of the table.
  TokenTable(StoredTensor stored, std::shared_ptr<const void> owner);
  // Rows [r0, r0 + n) converted to float32 into out (n × cols floats), e.g. dequantised GGUF
  // blocks.
  using RowReader = std::function<void(Eigen::Index r0, Eigen::Index n, float* out)>;
  // A [rows, cols] table read through `read`; `owner` keeps what it reads alive.
  TokenTable(Eigen::Index rows, Eigen::Index cols, RowReader read,
             std::shared_ptr<const void> owner);

  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  RowVector row(Eigen::Index id) const;                 // the embedding of token `id`
  Matrix block(Eigen::Index r0, Eigen::Index n) const;  // rows [r0, r0 + n) as float32
  // hidden · tableᵀ: [hidden.rows(), rows()], the table converted k_block_rows rows at a time.
  Matrix times_transposed(ConstMatrixRef hidden) const;

 private:
  std::shared_ptr<const Matrix> matrix_;  // in memory, or null
  StoredTensor stored_;                   // else this view
  RowReader read_;                        // or, when set, this reader
  std::shared_ptr<const void> owner_;
  Eigen::Index rows_ = 0, cols_ = 0;
};

// Every value equal (as floats, like Matrix ==), compared a block of rows at a time.
bool same_values(const TokenTable& a, const TokenTable& b);

}  // namespace attnviz
