// FFN with the three activations of the families attnviz reads.
#include "attnviz/compute/feed_forward.hpp"

#include <cmath>
#include <numbers>

#include "attnviz/compute/linear.hpp"

namespace attnviz {

void activate(MatrixRef x, Activation activation) {
  switch (activation) {
    case Activation::relu:
      x = x.cwiseMax(0.0f);
      break;
    case Activation::gelu:
      x = x.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * std::numbers::sqrt2_v<float> / 2.0f)); });
      break;
    case Activation::gelu_tanh: {
      const float c = std::sqrt(2.0f / std::numbers::pi_v<float>);
      x = x.unaryExpr([c](float v) { return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v))); });
      break;
    }
  }
}

Matrix feed_forward(ConstMatrixRef x, const FeedForwardWeights& w, Activation activation) {
  Matrix h = linear(x, w.up);
  activate(h, activation);
  return linear(h, w.down);
}

}  // namespace attnviz
