// Keeping one head's computation whole as forward hands it over.
#include "attnviz/analysis/head_trace.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"

namespace attnviz {

HeadTracer::HeadTracer(HeadId id, int max_tokens) : id_(std::move(id)), max_tokens_(max_tokens) {}

bool HeadTracer::is_my_layer(const HeadId& id) const {
  return id.stack == id_.stack && id.layer == id_.layer && id.site == id_.site;
}

bool HeadTracer::is_mine(const HeadId& id) const {
  return is_my_layer(id) && id.head == id_.head;
}

void HeadTracer::begin_map(const MapInfo& info) {
  active_ = is_mine(info.id);
  if (!active_) return;
  if (info.n_query > max_tokens_ || info.n_key > max_tokens_) {
    throw usage_error(
        fmt::format("explain keeps the head's whole {}×{} map; it takes at most {} tokens",
                    info.n_query, info.n_key, max_tokens_));
  }
  trace_.info = info;
  trace_.scores.resize(info.n_query, info.n_key);
  trace_.probs.resize(info.n_query, info.n_key);
  trace_.sink.resize(info.sink_logit ? info.n_query : 0);
}

void HeadTracer::queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) {
  if (!is_mine(info.id)) return;
  trace_.q = q;
  trace_.k = k;
}

void HeadTracer::head_values(const MapInfo& info, ConstMatrixRef v) {
  if (is_mine(info.id)) trace_.v = v;
}

void HeadTracer::on_block(const AttentionBlock& block) {
  if (!active_) return;
  const int rows = block.row_end - block.row_begin;
  trace_.scores.middleRows(block.row_begin, rows) = block.scores;
  trace_.probs.middleRows(block.row_begin, rows) = block.probs;
  for (int i = block.row_begin; block.sink_probs && i < block.row_end; ++i)
    trace_.sink[i] = block.sink(i);
}

void HeadTracer::head_output(const MapInfo& info, ConstMatrixRef o) {
  if (is_mine(info.id)) trace_.output = o;
}

void HeadTracer::attention_output(const MapInfo& info, ConstMatrixRef x_q, ConstMatrixRef x_kv,
                                  ConstMatrixRef merged, ConstMatrixRef out) {
  if (!is_my_layer(info.id) || trace_.q.size() == 0 || complete_) return;
  trace_.x_q = x_q;
  trace_.x_kv = x_kv;
  trace_.merged = merged;
  trace_.out = out;
  complete_ = true;
}

void HeadTracer::sublayer(const SublayerStep& step, ConstMatrixRef, ConstMatrixRef, ConstMatrixRef,
                          ConstMatrixRef) {
  const bool mine =
      step.stack == id_.stack && step.layer == id_.layer &&
      std::string(step.kind) == (id_.site == Site::cross ? "cross-attention" : "attention");
  if (mine && complete_) trace_.placement = step.placement;
}

const HeadTrace& HeadTracer::trace() const {
  if (!complete_) {
    throw Error(fmt::format(
        "explain: the model never computed {} (internal: the selection was checked)", id_.title()));
  }
  return trace_;
}

}  // namespace attnviz
