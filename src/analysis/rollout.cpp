// Attention rollout, streamed: heads combined block by block, one layer product per layer.
#include "attnviz/analysis/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include "attnviz/analysis/attention_flow.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

HeadCombine parse_head_combine(const std::string& name) {
  if (name == "mean") return HeadCombine::mean;
  if (name == "max") return HeadCombine::max;
  if (name == "min") return HeadCombine::min;
  throw usage_error(fmt::format("unknown head combination '{}' (known: mean, max)", name));
}

RolloutCollector::RolloutCollector(RolloutOptions options,
                                   std::function<void(const RolloutMap&)> on_layer)
    : options_(std::move(options)), on_layer_(std::move(on_layer)) {}

RolloutCollector::Stack& RolloutCollector::stack_of(const MapInfo& info) {
  for (auto& s : stacks_) {
    if (s.name == info.id.stack) return s;
  }
  stacks_.push_back(Stack{info.id.stack, {}, {}, {}, -1, 0});
  return stacks_.back();
}

void RolloutCollector::begin_map(const MapInfo& info) {
  current_ = nullptr;
  if (info.id.site != Site::self || info.n_query != info.n_key) return;
  if (options_.head && *options_.head != info.id.head) return;
  if (info.n_query > options_.max_tokens) {
    throw usage_error(fmt::format(
        "rollout holds three {0} × {0} matrices ({1} MB); it takes at most {2} tokens",
        info.n_query, 3 * int64_t(info.n_query) * info.n_query * 4 / 1000000, options_.max_tokens));
  }
  if (options_.flow && info.n_query > options_.max_flow_tokens) {
    throw usage_error(
        fmt::format("attention flow runs one maximum flow per token pair, about L·N⁴ steps ({} "
                    "tokens: {:.1e} per layer "
                    "followed); it takes at most {} tokens (rollout has no such limit)",
                    info.n_query, static_cast<double>(attention_flow_cost(info.n_query, 1)),
                    options_.max_flow_tokens));
  }
  Stack& s = stack_of(info);
  if (s.layer != info.id.layer) {  // the first head of a layer
    s.layer = info.id.layer;
    s.heads_seen = 0;
    s.combined = Matrix::Zero(info.n_query, info.n_key);
  }
  current_ = &s;
}

void RolloutCollector::on_block(const AttentionBlock& block) {
  if (!current_) return;
  auto rows = current_->combined.middleRows(block.row_begin, block.row_end - block.row_begin);
  if (options_.combine == HeadCombine::min && !options_.head) {
    if (current_->heads_seen == 0) {
      rows = block.probs;  // the first head: the minimum so far
    } else {               // min that keeps a NaN, as max does
      rows = rows.binaryExpr(block.probs, [](float m, float v) {
        return (v < m || std::isnan(v)) && !std::isnan(m) ? v : m;
      });
    }
  } else if (options_.combine == HeadCombine::max && !options_.head) {
    // max that keeps a NaN (a head's NaN weight is not hidden by another head's number)
    rows = rows.binaryExpr(block.probs, [](float m, float v) {
      return (v > m || std::isnan(v)) && !std::isnan(m) ? v : m;
    });
  } else {
    rows += block.probs;
  }
}

void RolloutCollector::end_map(const MapInfo& info) {
  if (!current_) return;
  Stack& s = *current_;
  current_ = nullptr;
  ++s.heads_seen;
  const int heads = options_.head ? 1 : info.n_heads;
  if (s.heads_seen == heads) close_layer(s, info);
}

namespace {

void discard_smallest(Matrix& a, double ratio) {
  const Eigen::Index n = a.size();
  const auto k = static_cast<Eigen::Index>(static_cast<double>(n) * ratio);  // int(), as Python
  if (k <= 0) return;
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  float* v = a.data();  // row-major: entry i is (i / N, i % N)
  // NaN after every number (never discarded first), ties by position: a strict weak order.
  const auto less = [v](Eigen::Index x, Eigen::Index y) {
    const auto key = [v](Eigen::Index i) {
      return std::tuple(std::isnan(v[i]) ? std::numeric_limits<float>::infinity() : v[i],
                        std::isnan(v[i]), i);
    };
    return key(x) < key(y);
  };
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), less);
  for (Eigen::Index i = 0; i < k; ++i) {
    if (order[size_t(i)] != 0) v[order[size_t(i)]] = 0.0f;  // (0, 0) stays
  }
}

}  // namespace

bool keeps_sink_out(const MapInfo& info, const RolloutOptions& options) {
  return info.sink_logit && (options.combine == HeadCombine::mean || options.head);
}

void RolloutCollector::close_layer(Stack& s, const MapInfo& info) {
  Matrix& a = s.combined;
  if (options_.combine == HeadCombine::mean && !options_.head)
    a /= static_cast<float>(info.n_heads);
  if (options_.discard_ratio > 0) discard_smallest(a, options_.discard_ratio);
  // Â = (1 − α)·A + α·I, each row renormalised to sum 1 (a fully masked row, all zero in A, becomes
  // the identity's row: the token keeps itself). Under sink logits (gpt-oss) a head's rows, and
  // their mean, sum to 1 − p_sink: the sink's share reaches no token, so those rows are left as
  // they are (summing to 1 − (1 − α)·p_sink) and the product follows only the attention that
  // reaches tokens. A max over heads is no distribution: renormalised as always.
  const float alpha = options_.residual;
  a *= 1.0f - alpha;
  a.diagonal().array() += alpha;
  const bool keep_sink_out = keeps_sink_out(info, options_);
  if (options_.vit_explain_division) {
    const Eigen::VectorXd sums = a.cast<double>().rowwise().sum();
    for (Eigen::Index j = 0; j < a.cols(); ++j) a.col(j) /= static_cast<float>(sums[j]);
  }
  for (Eigen::Index i = 0; i < a.rows() && !keep_sink_out && !options_.vit_explain_division; ++i) {
    const double sum = a.row(i).cast<double>().sum();
    if (sum > 0) {
      a.row(i) /= static_cast<float>(sum);
    } else {  // α = 0 and a fully masked row: the token keeps itself all the same
      a(i, i) = 1.0f;
    }
  }
  if (options_.flow) {
    const IndexSet& shown = options_.flow_layer;
    if (shown && s.layer > shown.indices().back()) return;  // past the last layer shown: not needed
    if (!a.allFinite()) {
      throw Error(fmt::format(
          "attention flow: layer {} of {} holds NaN or infinite attention weights, which have no "
          "flow (rollout carries them through its products instead)",
          s.layer, s.name.empty() ? std::string("the model") : s.name));
    }
    s.layers.push_back(std::move(a));
    a = Matrix();
    if (!shown.contains(s.layer)) return;
    s.rollout = attention_flow(s.layers, options_.threads);
  } else if (s.rollout.size() == 0) {
    s.rollout = std::move(a);
  } else {
    Matrix product(a.rows(), s.rollout.cols());
    product.noalias() = a * s.rollout;
    s.rollout = std::move(product);
  }
  a = Matrix();
  on_layer_(RolloutMap{s.name, s.layer, &info, &s.rollout});
}

}  // namespace attnviz
