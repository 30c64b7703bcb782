// A float32 tensor of any rank: the unit that moves between weight files and the model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnviz {

struct Tensor {
  std::vector<int64_t> shape;  // PyTorch order, outermost first
  std::vector<float> data;     // row-major (C order), shape product elements
};

// "[2, 3]" for messages.
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace attnviz
