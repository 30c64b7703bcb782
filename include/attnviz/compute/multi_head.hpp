// Multi-head attention: project, split into heads, attend per head, merge, project out.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "attnviz/compute/head_inputs.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// One kind of attention (self or cross) of one stack, the same in every layer: its mask, the labels
// of its axes, the scale and where its maps go. Built once per stack and site by forward().
struct AttentionSetup {
  std::string stack;  // "" for a single stack, else "encoder" / "decoder"
  Site site = Site::self;
  std::shared_ptr<const Mask> mask = std::make_shared<const Mask>();
  std::shared_ptr<const Labels> query_labels = std::make_shared<const Labels>();
  std::shared_ptr<const Labels> key_labels = std::make_shared<const Labels>();
  std::optional<float> scale;  // the factor on q·k; default 1/sqrt(d_k)
  float softcap =
      0.0f;  // scores = softcap · tanh(scores / softcap) before the mask (Gemma 2; 0: none)
  std::shared_ptr<const RelativeBias> relative_bias;  // T5's, on the self-attention (null: none)
  QueryKeyTransform qk{};  // per-head q/k norm eps and rotary positions (none by default)
  int block_rows = 256;
  AttentionSink* sink = nullptr;  // may be null: compute only
};

// MultiHead(x_q, x_kv) = Concat(head_1, …, head_h) W_O, head_i = Attention(x_q W_Q^i, x_kv W_K^i,
// x_kv W_V^i). Heads split as PyTorch's q.view(n, n_heads, d_k): head i owns columns [i·d_k,
// (i+1)·d_k); with fewer key/value heads (GQA), head i reads k/v head i / (n_heads / n_kv_heads).
// x_q [n_q, d_model], x_kv [n_k, d_model] → [n_q, d_model] (or [n_q, d_v] without an out
// projection). Maps are announced as (setup.stack, layer, setup.site, head).
Matrix multi_head_attention(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                            int n_heads, const AttentionSetup& setup, int layer);

}  // namespace attnviz
