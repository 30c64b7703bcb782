// The event that connects compute to sinks: rows [row_begin, row_end) of one head's attention map.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnviz/event/mask.hpp"
#include "attnviz/core/matrix.hpp"

namespace attnviz {

enum class Site { self, cross };
const char* site_name(Site site);  // "self" / "cross"

// Which map a block belongs to. stack is "" for a single-stack model, else "encoder" / "decoder".
struct HeadId {
  std::string stack;
  int layer = 0;
  Site site = Site::self;
  int head = 0;

  // "layer0.self" or "decoder.layer1.cross": the prefix of the --save tensor names.
  std::string map_name() const;
  // "layer 0 · self · head 3" (with the stack first when there is one), for titles.
  std::string title() const;
};

// Static facts about one map, announced once before its blocks.
struct MapInfo {
  HeadId id;
  int n_heads = 0;  // heads at this (stack, layer, site)
  int n_query = 0;
  int n_key = 0;
  int d_head = 0;      // per-head query/key width d_k
  float scale = 1.0f;  // the factor applied to q·k (1/sqrt(d_k) unless overridden)
  float q_var = 0.0f;  // variance of this head's query components (over rows and d_k)
  float k_var = 0.0f;  // variance of this head's key components; d_k·q_var·k_var predicts var(q·k)
  std::shared_ptr<const Mask> mask;  // shared, so sinks may keep it past the forward pass
  const std::vector<std::string>* query_labels = nullptr;
  const std::vector<std::string>* key_labels = nullptr;
};

struct AttentionBlock {
  AttentionBlock(const MapInfo& map_info, int begin, int end, ConstMatrixRef block_scores,
                 ConstMatrixRef block_probs)
      : info(&map_info), row_begin(begin), row_end(end), scores(block_scores), probs(block_probs) {}

  const MapInfo* info;
  int row_begin;  // first query row of the block
  int row_end;    // one past the last
  // [row_end - row_begin, n_key]: scale * q·k; masked cells hold -inf (masked_fill), because the
  // causal path never computes the keys above the diagonal.
  ConstMatrixRef scores;
  // [row_end - row_begin, n_key]: softmax over allowed keys; masked cells and fully masked rows are 0.
  ConstMatrixRef probs;
};

// A consumer of attention maps. Calls arrive in order: begin_map, blocks covering every row once
// in increasing order, end_map; maps follow one another (layer by layer, site by site, head by head).
class AttentionSink {
 public:
  virtual ~AttentionSink() = default;
  virtual void begin_map(const MapInfo& /*info*/) {}
  virtual void on_block(const AttentionBlock& block) = 0;
  virtual void end_map(const MapInfo& /*info*/) {}
  // After the forward pass: write files, print. The one place a sink produces output.
  virtual void finish() {}
};

}  // namespace attnviz
