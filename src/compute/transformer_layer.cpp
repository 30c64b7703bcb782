// Encoder and decoder layers as one function: the residual / norm wiring of every placement (post-,
// pre-, sandwich, output-only norms) and of the parallel block.
#include "attnviz/compute/transformer_layer.hpp"

#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/mixture_of_experts.hpp"
#include "attnviz/compute/norm.hpp"

namespace attnviz {

namespace {

// The FFN slot: one dense FFN, or a mixture of experts.
bool has_ffn(const LayerWeights& w) {
  return w.ffn || w.experts;
}
Matrix ffn_slot(const Matrix& h, const LayerWeights& w, const Config& c) {
  if (w.experts) return mixture_of_experts(h, *w.experts, c.experts, c.activation);
  return feed_forward(h, *w.ffn, c.activation);
}

// Applies one sublayer f with its residual and (pre- or post-) norm; Gemma 2's sandwich also
// normalises f's output before the residual, x + post(f(pre(x))), and OLMo 2 only that,
// x + post(f(x)). Tells the sink what it did.
template <typename F>
Matrix sublayer(const Matrix& x, const std::optional<LayerNormWeights>& norm,
                const std::optional<LayerNormWeights>& post, const Config& c, AttentionSink* sink,
                SublayerStep step, F&& f) {
  const auto out = [&](const Matrix& h) { return post ? normalize(f(h), *post, c) : f(h); };
  Matrix h, update, result;
  if (!norm) {
    step.placement = post ? "output norm" : "no norm";
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

// GPT-NeoX's parallel block (use_parallel_residual): attention and FFN both read the layer's
// input, x + Attn(Norm(x)) + FFN(Norm'(x)), Norm' the FFN's own norm or, when the layer has one
// norm (GPT-J, Phi-2), the attention's. Each step reports what it read and added; both report
// the layer's output, the one residual state after them.
Matrix parallel_layer(const Matrix& x, const LayerWeights& w, const Config& c, int layer,
                      const AttentionSetup& self) {
  const auto read = [&](const std::optional<LayerNormWeights>& norm) {
    return norm ? normalize(x, *norm, c) : x;
  };
  const auto out = [&](Matrix f, const std::optional<LayerNormWeights>& post) {
    return post ? normalize(f, *post, c) : f;
  };
  const Matrix h_attn = read(w.norm_self);
  const Matrix attn = out(multi_head_attention(h_attn, h_attn, w.self_attn, c.n_heads, self, layer),
                          w.norm_self_post);
  Matrix result = x + attn;
  Matrix h_ffn, ffn;
  if (has_ffn(w)) {
    h_ffn = w.norm_ffn ? read(w.norm_ffn) : h_attn;  // one norm: what attention read (GPT-J)
    ffn = out(ffn_slot(h_ffn, w, c), w.norm_ffn_post);
    result += ffn;
  }
  if (self.sink) {
    self.sink->sublayer({self.stack, layer, "attention", "parallel"}, x, h_attn, attn, result);
    if (has_ffn(w))
      self.sink->sublayer({self.stack, layer, "feed-forward", "parallel"}, x, h_ffn, ffn, result);
  }
  return result;
}

// DINOv2's layer scale: a sub-layer's output times its learned gain per channel (none: as it is).
Matrix layer_scaled(Matrix update, const RowVector& gain) {
  if (gain.size() > 0) update.array().rowwise() *= gain.array();
  return update;
}

}  // namespace

Matrix transformer_layer(ConstMatrixRef x_in, const LayerWeights& w, const Config& c, int layer,
                         const AttentionSetup& self, const Matrix* memory,
                         const AttentionSetup* cross) {
  if (c.parallel_residual) return parallel_layer(x_in, w, c, layer, self);
  Matrix x = x_in;
  const auto step = [&](const char* kind) { return SublayerStep{self.stack, layer, kind, ""}; };
  x = sublayer(
      x, w.norm_self, w.norm_self_post, c, self.sink, step("attention"), [&](const Matrix& h) {
        return layer_scaled(multi_head_attention(h, h, w.self_attn, c.n_heads, self, layer),
                            w.layer_scale_self);
      });
  if (w.cross_attn && memory && cross) {
    x = sublayer(x, w.norm_cross, std::nullopt, c, self.sink, step("cross-attention"),
                 [&](const Matrix& h) {
                   return multi_head_attention(h, *memory, *w.cross_attn, c.n_heads, *cross, layer);
                 });
  }
  if (has_ffn(w)) {
    x = sublayer(
        x, w.norm_ffn, w.norm_ffn_post, c, self.sink, step("feed-forward"),
        [&](const Matrix& h) { return layer_scaled(ffn_slot(h, w, c), w.layer_scale_ffn); });
  }
  return x;
}

}  // namespace attnviz
