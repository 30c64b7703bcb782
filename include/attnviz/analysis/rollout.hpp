// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): per layer
// the heads combined (mean or max) into A, the residual added as Â = (1 − α)·A + α·I with rows
// renormalised, and the layers multiplied up: R₁ = Â₁, R_l = Â_l · R_{l−1}. Row i of R_l is how
// much of token i's representation after layer l traces back to each input token.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/event/selection.hpp"

namespace attnviz {

enum class HeadCombine { mean, max, min };
// "mean" / "max" / "min"; usage Error otherwise
HeadCombine parse_head_combine(const std::string& name);

struct RolloutOptions {
  HeadCombine combine = HeadCombine::mean;
  float residual = 0.5f;  // α: the weight of the identity (the residual connection)
  // vit-explain's discard_ratio (jacobgil/vit-explain, vit_rollout.py): before the identity is
  // added, the int(N² · ratio) smallest entries of the combined layer are set to 0 — all but the
  // first entry, (0, 0), which is never dropped. Ties go to the earlier entry (row by row).
  double discard_ratio = 0.0;  // a double, as Python computes int(N² · ratio)
  // vit-explain's division instead of renormalising rows: its `a / a.sum(dim=-1)` broadcasts the
  // row sums along the last axis, dividing entry (i, j) by row j's sum. The same as renormalising
  // when every row already sums to 1 (a mean of heads, nothing discarded); else its own numbers.
  bool vit_explain_division = false;
  std::optional<int> head;  // only this head of every layer, instead of combining them
  // The largest N rollout takes: it holds three N × N float matrices (the layer being combined, R,
  // and the product), so past this it refuses instead of exhausting memory.
  int max_tokens = 8192;
  // Attention flow (attention_flow.hpp) instead of the product: each layer's Â is kept, and after a
  // layer the flow through all layers so far is computed, for the layers `flow_layer` names (all
  // when unset). It costs about L·N⁴, so past max_flow_tokens it refuses.
  bool flow = false;
  IndexSet flow_layer;
  int max_flow_tokens = 128;
  int threads = 1;  // attention flow's threads
};

// One rollout map: R (or under flow, F) after `layer` of `stack`, over that stack's tokens
// (self-attention only: a cross map is target × source and has no identity to add).
struct RolloutMap {
  std::string stack;
  int layer = 0;
  const MapInfo* source =
      nullptr;  // the layer's last self map (labels, mask), valid during the call
  const Matrix* values = nullptr;  // [N, N], valid during the call
};

// Whether a rollout of maps like `info` (one of its layer's heads) keeps the sink logits' share out
// of its rows (a mean of heads or one head under sink logits: rows sum below 1) instead of
// renormalising them.
bool keeps_sink_out(const MapInfo& info, const RolloutOptions& options);

// A sink that combines each self-attention layer's heads as their blocks arrive (one N × N
// accumulator per stack in progress, never a head's map), and calls on_layer with R once the
// layer's last head has ended.
class RolloutCollector : public AttentionSink {
 public:
  RolloutCollector(RolloutOptions options, std::function<void(const RolloutMap&)> on_layer);
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;

 private:
  struct Stack {
    std::string name;
    Matrix combined;  // the current layer's heads combined
    Matrix rollout;   // R so far (empty before the first layer); under flow, the last flow computed
    std::vector<Matrix> layers;  // under flow: Â of every layer so far
    int layer = -1;              // the layer being combined
    int heads_seen = 0;
  };
  Stack& stack_of(const MapInfo& info);
  void close_layer(Stack& s, const MapInfo& info);

  RolloutOptions options_;
  std::function<void(const RolloutMap&)> on_layer_;
  std::vector<Stack> stacks_;
  Stack* current_ = nullptr;  // the stack of the map in progress, when it takes part
};

}  // namespace attnviz
