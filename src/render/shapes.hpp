// Shared checks of the render sinks: values, mask and labels must describe the same map.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/event/mask.hpp"

namespace attnviz::detail {

// Throws Error naming `what` when the mask matrix or a non-empty label list does not match values.
inline void check_map_shapes(std::string_view what, const Matrix& values, const Mask& mask,
                             const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels) {
  if (mask.matrix &&
      (mask.matrix->rows() != values.rows() || mask.matrix->cols() != values.cols())) {
    throw Error(fmt::format("{}: mask is [{}, {}] but the map is [{}, {}]", what,
                            mask.matrix->rows(), mask.matrix->cols(), values.rows(),
                            values.cols()));
  }
  if (!row_labels.empty() && static_cast<Eigen::Index>(row_labels.size()) != values.rows()) {
    throw Error(fmt::format("{}: {} query labels for a map of {} rows", what, row_labels.size(),
                            values.rows()));
  }
  if (!col_labels.empty() && static_cast<Eigen::Index>(col_labels.size()) != values.cols()) {
    throw Error(fmt::format("{}: {} key labels for a map of {} columns", what, col_labels.size(),
                            values.cols()));
  }
}

// labels, or "0", "1", … when labels is empty.
inline std::vector<std::string> labels_or_indices(const std::vector<std::string>& labels,
                                                  Eigen::Index n) {
  if (!labels.empty()) return labels;
  std::vector<std::string> out;
  for (Eigen::Index k = 0; k < n; ++k) out.push_back(std::to_string(k));
  return out;
}

}  // namespace attnviz::detail
