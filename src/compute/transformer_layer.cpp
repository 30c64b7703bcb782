// Encoder and decoder layers as one function: the residual / norm wiring of both norm placements.
#include "attnviz/compute/transformer_layer.hpp"

#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/norm.hpp"

namespace attnviz {

namespace {

// Applies one sublayer f with its residual and (pre- or post-) norm; Gemma 2's sandwich also
// normalises f's output before the residual: x + post(f(pre(x))). Tells the sink what it did.
template <typename F>
Matrix sublayer(const Matrix& x, const std::optional<LayerNormWeights>& norm,
                const std::optional<LayerNormWeights>& post, const Config& c, AttentionSink* sink,
                SublayerStep step, F&& f) {
  const auto out = [&](const Matrix& h) { return post ? normalize(f(h), *post, c) : f(h); };
  Matrix h, update, result;
  if (!norm) {
    step.placement = "no norm";
    update = out(x);
    result = x + update;
  } else if (c.norm_first) {
    step.placement = post ? "sandwich" : "pre-norm";
    h = normalize(x, *norm, c);
    update = out(h);
    result = x + update;
  } else {
    step.placement = "post-norm";
    update = out(x);
    result = normalize(x + update, *norm, c);
  }
  if (sink)
    sink->sublayer(step, x, h.size() > 0 ? ConstMatrixRef(h) : ConstMatrixRef(x), update, result);
  return result;
}

}  // namespace

Matrix transformer_layer(ConstMatrixRef x_in, const LayerWeights& w, const Config& c, int layer,
                         const AttentionSetup& self, const Matrix* memory,
                         const AttentionSetup* cross) {
  Matrix x = x_in;
  const auto step = [&](const char* kind) { return SublayerStep{self.stack, layer, kind, ""}; };
  x = sublayer(x, w.norm_self, w.norm_self_post, c, self.sink, step("attention"),
               [&](const Matrix& h) {
                 return multi_head_attention(h, h, w.self_attn, c.n_heads, self, layer);
               });
  if (w.cross_attn && memory && cross) {
    x = sublayer(x, w.norm_cross, std::nullopt, c, self.sink, step("cross-attention"),
                 [&](const Matrix& h) {
                   return multi_head_attention(h, *memory, *w.cross_attn, c.n_heads, *cross, layer);
                 });
  }
  if (w.ffn) {
    x = sublayer(x, w.norm_ffn, w.norm_ffn_post, c, self.sink, step("feed-forward"),
                 [&](const Matrix& h) { return feed_forward(h, *w.ffn, c.activation); });
  }
  return x;
}

}  // namespace attnviz
