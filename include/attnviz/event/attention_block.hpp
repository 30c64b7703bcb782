// The event that connects compute to sinks: rows [row_begin, row_end) of one head's attention map.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/additive_score.hpp"
#include "attnviz/event/head_id.hpp"
#include "attnviz/event/mask.hpp"
#include "attnviz/event/relative_bias.hpp"

namespace attnviz {

// The labels of one axis of a map, one per token.
using Labels = std::vector<std::string>;

// Static facts about one map, announced once before its blocks.
struct MapInfo {
  HeadId id;
  int n_heads = 0;  // heads at this (stack, layer, site)
  int n_query = 0;
  int n_key = 0;
  int d_head = 0;      // per-head query/key width d_k
  float scale = 1.0f;  // the factor applied to q·k (1/sqrt(d_k) unless overridden)
  float softcap =
      0.0f;  // scores = softcap · tanh(scale · q·k / softcap) before the mask (Gemma 2); 0: none
  // gpt-oss's learned sink logit σ of this head: one more logit in each row's softmax, whose weight
  // goes to no key, so a row's weights sum to 1 − p_sink (AttentionBlock::sink_probs). Empty: none.
  std::optional<float> sink_logit;
  // T5's relative position bias, added to scale · q·k before the mask (null: none).
  std::shared_ptr<const RelativeBias> relative_bias;
  // Bahdanau's additive score v · tanh(q + k) + b instead of scale · q·k (the translation
  // tutorial's GRU model; null: the scaled dot product). `scale` is then 1 and applies to nothing.
  std::shared_ptr<const AdditiveScore> additive;
  // What the values are: "" for a head's attention weights (softmax of the scores); otherwise a map
  // derived from them, named for titles ("rollout: mean of heads, residual 0.5"), which has no
  // scores.
  std::string kind;
  // A derived map whose rows may sum below 1 (a rollout keeping the sink logits' share out): checks
  // then hold its rows to a sum of at most 1.
  bool rows_below_one = false;
  // Shared, so sinks may keep them past the forward pass; never null (no mask: Mask{}; no
  // labels: an empty list, and the axes show indices).
  std::shared_ptr<const Mask> mask = std::make_shared<const Mask>();
  std::shared_ptr<const Labels> query_labels = std::make_shared<const Labels>();
  std::shared_ptr<const Labels> key_labels = std::make_shared<const Labels>();
};

// Where a map sits, for titles: "layer 0 · self · head 3" (HeadId::title); a map derived from
// several heads (`kind` set, such as a rollout) is no one head's: "layer 0 · self".
inline std::string map_where(const MapInfo& info) {
  const std::string t = info.id.title();
  return info.kind.empty() ? t : t.substr(0, t.rfind(" · head "));
}

struct AttentionBlock {
  AttentionBlock(const MapInfo& map_info, int begin, int end, ConstMatrixRef block_scores,
                 ConstMatrixRef block_probs, const float* block_sink_probs = nullptr)
      : info(&map_info),
        row_begin(begin),
        row_end(end),
        scores(block_scores),
        probs(block_probs),
        sink_probs(block_sink_probs) {}

  const MapInfo* info;
  int row_begin;  // first query row of the block
  int row_end;    // one past the last
  // [row_end - row_begin, n_key]: scale * q·k; masked cells hold -inf (masked_fill), because the
  // causal path never computes the keys above the diagonal.
  ConstMatrixRef scores;
  // [row_end - row_begin, n_key]: softmax over allowed keys; masked cells and fully masked rows are
  // 0.
  ConstMatrixRef probs;
  // [row_end - row_begin]: the sink's weight in each row when info->sink_logit is set, else null.
  const float* sink_probs;
  // Row i's sink weight (0 without a sink logit).
  float sink(int row) const { return sink_probs ? sink_probs[row - row_begin] : 0.0f; }
};

// One residual sublayer of a transformer layer, as it ran: `x` → (norm) → f → + x → (norm).
struct SublayerStep {
  std::string stack;
  int layer = 0;
  const char* kind = "";  // "attention", "cross-attention", "feed-forward"
  // "pre-norm", "post-norm", "sandwich" (x + Norm(f(Norm(x)))), "output norm" (x + Norm(f(x))),
  // "no norm", "parallel" (attention and FFN both read the layer's input; each step's output is
  // the layer's, x + both updates).
  const char* placement = "";
};

// A consumer of attention maps. Calls arrive in order: begin_map, queries_and_keys, head_values,
// blocks covering every row once in increasing order, head_output, end_map; maps follow one another
// (layer by layer, site by site, head by head), and attention_output after a layer's last head.
class AttentionSink {
 public:
  virtual ~AttentionSink() = default;
  virtual void begin_map(const MapInfo& /*info*/) {}
  // The head's queries [n_query, d_k] and keys [n_key, d_k] whose products are the scores (before
  // the scale), valid during the call only: for sinks that study them (stats: var(q), var(k)).
  virtual void queries_and_keys(const MapInfo& /*info*/, ConstMatrixRef /*q*/,
                                ConstMatrixRef /*k*/) {}
  // The head's values [n_key, d_v], after queries_and_keys; and after the last block its output
  // P·V [n_query, d_v]. Valid during the call only (for `explain`).
  virtual void head_values(const MapInfo& /*info*/, ConstMatrixRef /*v*/) {}
  virtual void head_output(const MapInfo& /*info*/, ConstMatrixRef /*o*/) {}
  // After every head of a layer's attention (info: its last head's): the inputs the projections
  // read (x_q [n_query, d_in]; x_kv [n_key, d_in], the source under cross-attention), the heads'
  // outputs side by side [n_query, heads · d_v] and the sublayer's output after W_O [n_query,
  // d_out].
  virtual void attention_output(const MapInfo& /*info*/, ConstMatrixRef /*x_q*/,
                                ConstMatrixRef /*x_kv*/, ConstMatrixRef /*merged*/,
                                ConstMatrixRef /*out*/) {}
  // After each residual sublayer: its input x, what f read (the norm's output under pre-norm, else
  // x), f's output added to the residual stream (after Gemma's post-norm), and the sublayer's
  // output (x + update, normalised under post-norm). For `attnviz residual`.
  virtual void sublayer(const SublayerStep& /*step*/, ConstMatrixRef /*x*/,
                        ConstMatrixRef /*f_input*/, ConstMatrixRef /*update*/,
                        ConstMatrixRef /*out*/) {}
  virtual void on_block(const AttentionBlock& block) = 0;
  virtual void end_map(const MapInfo& /*info*/) {}
  // After the forward pass: write what needs every map (grids, --save, tables gathered whole).
  // Sinks may also write as maps end (per-head figures, streamed tables).
  virtual void finish() {}
};

}  // namespace attnviz
