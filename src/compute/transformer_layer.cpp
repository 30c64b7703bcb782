// Encoder and decoder layers as one function: the residual / norm wiring of both norm placements.
#include "attnviz/compute/transformer_layer.hpp"

#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/norm.hpp"

namespace attnviz {

namespace {

// Applies one sublayer f with its residual and (pre- or post-) norm.
template <typename F>
Matrix sublayer(const Matrix& x, const std::optional<LayerNormWeights>& norm, const Config& c, F&& f) {
  if (!norm) return x + f(x);
  if (c.norm_first) return x + f(normalize(x, *norm, c));
  return normalize(x + f(x), *norm, c);
}

}  // namespace

Matrix transformer_layer(ConstMatrixRef x_in, const LayerWeights& w, const Config& c, int layer,
                         const AttentionSetup& self, const Matrix* memory, const AttentionSetup* cross) {
  Matrix x = x_in;
  x = sublayer(x, w.norm_self, c, [&](const Matrix& h) {
    return multi_head_attention(h, h, w.self_attn, c.n_heads, self, layer);
  });
  if (w.cross_attn && memory && cross) {
    x = sublayer(x, w.norm_cross, c, [&](const Matrix& h) {
      return multi_head_attention(h, *memory, *w.cross_attn, c.n_heads, *cross, layer);
    });
  }
  if (w.ffn) {
    x = sublayer(x, w.norm_ffn, c, [&](const Matrix& h) { return feed_forward(h, *w.ffn, c.activation); });
  }
  return x;
}

}  // namespace attnviz
