// Multi-head attention: project, split into heads, attend per head, merge, project out.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/compute/head_inputs.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/core/matrix.hpp"
#include "attnviz/model/weights.hpp"

namespace attnviz {

// Where one attention call sits and where its maps go.
struct AttentionSite {
  HeadId id;  // stack, layer and site; the head is filled in per head
  std::shared_ptr<const Mask> mask;
  const std::vector<std::string>* query_labels = nullptr;
  const std::vector<std::string>* key_labels = nullptr;
  std::optional<float> scale;  // the factor on q·k; default 1/sqrt(d_k)
  QueryKeyTransform qk{};      // per-head q/k norm eps and rotary positions (none by default)
  int block_rows = 256;
  AttentionSink* sink = nullptr;  // may be null: compute only
};

// MultiHead(x_q, x_kv) = Concat(head_1, …, head_h) W_O, head_i = Attention(x_q W_Q^i, x_kv W_K^i, x_kv W_V^i).
// Heads split as PyTorch's q.view(n, n_heads, d_k): head i owns columns [i·d_k, (i+1)·d_k); with
// fewer key/value heads (GQA), head i reads k/v head i / (n_heads / n_kv_heads).
// x_q [n_q, d_model], x_kv [n_k, d_model] → [n_q, d_out] (or [n_q, d_v] without an out projection).
Matrix multi_head_attention(ConstMatrixRef x_q, ConstMatrixRef x_kv, const AttentionWeights& w,
                            int n_heads, const AttentionSite& site);

}  // namespace attnviz
