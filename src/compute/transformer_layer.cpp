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

// The site with the model's per-head q/k steps: q/k norm eps everywhere, rotary positions in
// self-attention only (load_model refuses rotary models with cross-attention).
AttentionSite with_qk(const AttentionSite& site, const Config& c, bool self) {
  AttentionSite s = site;
  s.qk = QueryKeyTransform{c.layer_norm_eps, self ? c.rotary_dim : 0, c.rope_theta};
  return s;
}

}  // namespace

Matrix transformer_layer(ConstMatrixRef x_in, const LayerWeights& w, const Config& c,
                         const AttentionSite& self_site, const Matrix* memory,
                         const AttentionSite* cross_site) {
  Matrix x = x_in;
  x = sublayer(x, w.norm_self, c, [&](const Matrix& h) {
    return multi_head_attention(h, h, w.self_attn, c.n_heads, with_qk(self_site, c, true));
  });
  if (w.cross_attn && memory && cross_site) {
    x = sublayer(x, w.norm_cross, c, [&](const Matrix& h) {
      return multi_head_attention(h, *memory, *w.cross_attn, c.n_heads, with_qk(*cross_site, c, false));
    });
  }
  if (w.ffn) {
    x = sublayer(x, w.norm_ffn, c, [&](const Matrix& h) { return feed_forward(h, *w.ffn, c.activation); });
  }
  return x;
}

}  // namespace attnviz
