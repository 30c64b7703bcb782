// Encoder and decoder layers as one function: the residual / norm wiring of both norm placements.
#include "attnviz/compute/transformer_layer.hpp"

#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/norm.hpp"

namespace attnviz {

namespace {

// Applies one sublayer f with its residual and (pre- or post-) norm; Gemma 2's sandwich also
// normalises f's output before the residual: x + post(f(pre(x))).
template <typename F>
Matrix sublayer(const Matrix& x, const std::optional<LayerNormWeights>& norm,
                const std::optional<LayerNormWeights>& post, const Config& c, F&& f) {
  const auto out = [&](const Matrix& h) { return post ? normalize(f(h), *post, c) : f(h); };
  if (!norm) return x + out(x);
  if (c.norm_first) return x + out(normalize(x, *norm, c));
  return normalize(x + out(x), *norm, c);
}

}  // namespace

Matrix transformer_layer(ConstMatrixRef x_in, const LayerWeights& w, const Config& c, int layer,
                         const AttentionSetup& self, const Matrix* memory, const AttentionSetup* cross) {
  Matrix x = x_in;
  x = sublayer(x, w.norm_self, w.norm_self_post, c, [&](const Matrix& h) {
    return multi_head_attention(h, h, w.self_attn, c.n_heads, self, layer);
  });
  if (w.cross_attn && memory && cross) {
    x = sublayer(x, w.norm_cross, std::nullopt, c, [&](const Matrix& h) {
      return multi_head_attention(h, *memory, *w.cross_attn, c.n_heads, *cross, layer);
    });
  }
  if (w.ffn) {
    x = sublayer(x, w.norm_ffn, w.norm_ffn_post, c, [&](const Matrix& h) { return feed_forward(h, *w.ffn, c.activation); });
  }
  return x;
}

}  // namespace attnviz
