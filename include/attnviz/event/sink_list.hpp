// Fans every event out to several sinks, in order; or hands them on to one owned elsewhere.
#pragma once

#include <memory>
#include <vector>

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

class SinkList : public AttentionSink {
 public:
  void add(std::unique_ptr<AttentionSink> sink) { sinks_.push_back(std::move(sink)); }
  bool empty() const { return sinks_.empty(); }
  void begin_map(const MapInfo& info) override {
    for (auto& s : sinks_) s->begin_map(info);
  }
  void queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) override {
    for (auto& s : sinks_) s->queries_and_keys(info, q, k);
  }
  void head_values(const MapInfo& info, ConstMatrixRef v) override {
    for (auto& s : sinks_) s->head_values(info, v);
  }
  void head_output(const MapInfo& info, ConstMatrixRef o) override {
    for (auto& s : sinks_) s->head_output(info, o);
  }
  void attention_output(const MapInfo& info, ConstMatrixRef x_q, ConstMatrixRef x_kv,
                        ConstMatrixRef merged, ConstMatrixRef out) override {
    for (auto& s : sinks_) s->attention_output(info, x_q, x_kv, merged, out);
  }
  void sublayer(const SublayerStep& step, ConstMatrixRef x, ConstMatrixRef f_input,
                ConstMatrixRef update, ConstMatrixRef out) override {
    for (auto& s : sinks_) s->sublayer(step, x, f_input, update, out);
  }
  void on_block(const AttentionBlock& block) override {
    for (auto& s : sinks_) s->on_block(block);
  }
  void end_map(const MapInfo& info) override {
    for (auto& s : sinks_) s->end_map(info);
  }
  void finish() override {
    for (auto& s : sinks_) s->finish();
  }

 private:
  std::vector<std::unique_ptr<AttentionSink>> sinks_;
};

// Hands every event to a sink owned elsewhere (a SinkList owns what it holds).
class ForwardingSink : public AttentionSink {
 public:
  explicit ForwardingSink(AttentionSink& to) : to_(to) {}
  void begin_map(const MapInfo& info) override { to_.begin_map(info); }
  void queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) override {
    to_.queries_and_keys(info, q, k);
  }
  void head_values(const MapInfo& info, ConstMatrixRef v) override { to_.head_values(info, v); }
  void head_output(const MapInfo& info, ConstMatrixRef o) override { to_.head_output(info, o); }
  void attention_output(const MapInfo& info, ConstMatrixRef x_q, ConstMatrixRef x_kv,
                        ConstMatrixRef merged, ConstMatrixRef out) override {
    to_.attention_output(info, x_q, x_kv, merged, out);
  }
  void sublayer(const SublayerStep& step, ConstMatrixRef x, ConstMatrixRef f_input,
                ConstMatrixRef update, ConstMatrixRef out) override {
    to_.sublayer(step, x, f_input, update, out);
  }
  void on_block(const AttentionBlock& block) override { to_.on_block(block); }
  void end_map(const MapInfo& info) override { to_.end_map(info); }
  void finish() override { to_.finish(); }

 private:
  AttentionSink& to_;
};

}  // namespace attnviz
