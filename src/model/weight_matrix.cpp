// Weight matrices as stored: owned or viewed, split into fused parts without copying.
#include "attnviz/model/weight_matrix.hpp"

namespace attnviz {

WeightMatrix::WeightMatrix(Matrix stored, WeightLayout layout) : layout_(layout) {
  auto owned = std::make_shared<const Matrix>(std::move(stored));
  data_ = owned->data();
  rows_ = owned->rows();
  cols_ = owned->cols();
  stride_ = cols_;
  owner_ = std::move(owned);
}

WeightMatrix::WeightMatrix(const float* data, Eigen::Index rows, Eigen::Index cols,
                           Eigen::Index stride, WeightLayout layout,
                           std::shared_ptr<const void> owner)
    : data_(data),
      rows_(rows),
      cols_(cols),
      stride_(stride),
      layout_(layout),
      owner_(std::move(owner)) {}

Matrix WeightMatrix::matrix() const {
  if (rows_ == 0 || cols_ == 0) return Matrix(out_features(), in_features());
  if (layout_ == WeightLayout::out_in) return stored();
  return stored().transpose();
}

WeightMatrix WeightMatrix::out_rows(Eigen::Index from, Eigen::Index n) const {
  WeightMatrix part = *this;
  // [out, in]: whole stored rows; [in, out]: a band of columns, each row still `stride_` apart.
  const Eigen::Index offset = layout_ == WeightLayout::out_in ? from * stride_ : from;
  if (data_)
    part.data_ =
        data_ + offset;  // BindMode::check_shapes binds sizes without data: only they are split
  (layout_ == WeightLayout::out_in ? part.rows_ : part.cols_) = n;
  return part;
}

}  // namespace attnviz
