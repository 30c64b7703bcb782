// FFN, plain or gated, with the five activations of the families attnviz reads.
#include "attnviz/compute/feed_forward.hpp"

#include <cmath>
#include <numbers>

#include "attnviz/compute/block_team.hpp"
#include "attnviz/compute/linear.hpp"
#include "attnviz/core/vector_math.hpp"

namespace attnviz {

namespace {

void activate_rows(MatrixRef x, Activation activation) {
  switch (activation) {
    case Activation::relu:
      x = x.cwiseMax(0.0f);
      break;
    case Activation::gelu:
      x = x.unaryExpr([](float v) {
        return 0.5f * v * (1.0f + std::erf(v * std::numbers::sqrt2_v<float> / 2.0f));
      });
      break;
    case Activation::gelu_tanh:  // Highway's vectorised tanh (std::tanh was 14% of a GPT-2 run)
      for (Eigen::Index r = 0; r < x.rows(); ++r)
        gelu_tanh_in_place(x.row(r).data(), static_cast<size_t>(x.cols()));
      break;
    case Activation::silu: {  // x·σ(x) = x / (1 + e^(−x))
      auto a = x.array();
      a = a / (1.0f + (-a).exp());
      break;
    }
    case Activation::quick_gelu: {  // x·σ(1.702·x) (CLIP, Hendrycks & Gimpel 2016 §2)
      auto a = x.array();
      a = a / (1.0f + (-1.702f * a).exp());
      break;
    }
  }
}

}  // namespace

void activate(MatrixRef x, Activation activation) {
  // Rows side by side on the block team: between the products, this was one core's work.
  for_row_chunks(static_cast<int>(x.rows()), k_min_chunk_rows,
                 [&](int r0, int r1) { activate_rows(x.middleRows(r0, r1 - r0), activation); });
}

Matrix feed_forward(ConstMatrixRef x, const FeedForwardWeights& w, Activation activation) {
  if (w.gate) {  // down(act(gate(x)) ⊙ up(x))
    Matrix g = linear(x, *w.gate);
    activate(g, activation);
    return linear((g.array() * linear(x, w.up).array()).matrix(), w.down);
  }
  Matrix h = linear(x, w.up);
  activate(h, activation);
  return linear(h, w.down);
}

}  // namespace attnviz
