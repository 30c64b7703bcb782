// `attnviz explain`: one head's attention written out step by step as tutorials write it —
// X, the projections and the head split, QKᵀ, the scale and why, the mask, the softmax row by row,
// P·V, the merge and W_O — with the run's own numbers; and for a chosen cell (i, j) the dot product
// q_i·k_j term by term through to its weight.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "attnviz/analysis/head_trace.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

struct ExplainOptions {
  TableFormat format = TableFormat::text;  // text, markdown or json (json: every matrix whole)
  int precision = 3;
  int rows = 6, cols = 6;  // the top-left corner of each matrix shown (text, markdown)
  std::optional<std::pair<int, int>> cell;  // --cell I,J
  std::string model_name;
  // What the model does around the head that the steps must say: q/k normalised per head, and
  // rotary positions (q and k printed after both); q, k and v cut from one fused projection of this
  // many columns (0: three projections); no W_O after the merge (qkv-linears without `out`,
  // fused-qkv).
  bool qk_norm = false;
  bool qk_norm_whole = false;  // over the whole projection (OLMo 2), not per head
  int rotary_dim = 0;
  int fused_qkv_width = 0;
  bool out_projection = true;
  // What set the scale when it is not 1/sqrt(d_k): "--qk-scale 0.5", or the config key and its
  // file.
  std::string scale_source;
};

std::string render_explain(const HeadTrace& trace, const ExplainOptions& options);

}  // namespace attnviz
