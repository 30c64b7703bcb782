// The figures a head can be sorted or charted by, and --role / --sort / --top over heads.
#include "attnviz/analysis/stats_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

constexpr StatsMetric k_metrics[] = {
    {"max_weight", "mean max weight", [](const HeadStats& h) { return h.scaled.max_weight.mean(); },
     true},
    {"entropy", "mean entropy (nats)", [](const HeadStats& h) { return h.scaled.entropy.mean(); },
     false},
    {"entropy_normalized", "mean entropy / log(allowed keys)",
     [](const HeadStats& h) { return h.scaled.entropy_normalized.mean(); }, true},
    {"effective_keys", "mean effective keys exp(H)",
     [](const HeadStats& h) { return h.scaled.effective_keys.mean(); }, false},
    {"top_gap", "mean top-1 - top-2 score gap",
     [](const HeadStats& h) { return h.scaled.top_gap.mean(); }, false},
    {"jacobian", "mean softmax Jacobian norm",
     [](const HeadStats& h) { return h.scaled.jacobian_norm.mean(); }, false},
    {"saturated", "share of saturated rows",
     [](const HeadStats& h) { return h.scaled.saturated_share(); }, true},
    {"sink", "mean weight on the first key",
     [](const HeadStats& h) { return h.scaled.first_key.mean(); }, true},
    {"sink_logit", "mean weight on the learned sink logit (no key)",
     [](const HeadStats& h) { return h.sink_logit_weight.mean(); }, true},
    {"previous", "mean weight on the previous token",
     [](const HeadStats& h) { return h.scaled.previous.mean(); }, true},
    {"diagonal", "mean weight on the diagonal",
     [](const HeadStats& h) { return h.scaled.diagonal.mean(); }, true},
    {"raw_variance", "variance of q.k", [](const HeadStats& h) { return h.raw_logits.variance(); },
     false},
    {"scaled_variance", "variance of the scaled scores",
     [](const HeadStats& h) { return h.scaled_logits.variance(); }, false},
    {"predicted_variance", "d_k var(q) var(k)",
     [](const HeadStats& h) { return h.predicted_raw_variance.mean(); }, false},
    {"unscaled_saturated", "share of saturated rows, unscaled",
     [](const HeadStats& h) { return h.unscaled.saturated_share(); }, true},
    {"unscaled_entropy", "mean entropy (nats), unscaled",
     [](const HeadStats& h) { return h.unscaled.entropy.mean(); }, false},
    {"extra_saturated", "saturated rows unscaled minus saturated rows scaled",
     [](const HeadStats& h) { return double(h.unscaled.saturated_rows - h.scaled.saturated_rows); },
     false},
};

}  // namespace

std::span<const StatsMetric> all_stats_metrics() {
  return k_metrics;
}

const StatsMetric& find_stats_metric(const std::string& name, const std::string& flag) {
  std::string known;
  for (const auto& m : k_metrics) {
    if (name == m.name) return m;
    known += known.empty() ? m.name : std::string(", ") + m.name;
  }
  throw usage_error(fmt::format("{} '{}': unknown statistic (known: {})", flag, name, known));
}

std::vector<HeadStats> order_heads(const std::vector<HeadStats>& heads, const HeadOrder& order) {
  std::vector<HeadStats> out;
  for (const auto& h : heads) {
    if (!order.role || h.role() == *order.role) out.push_back(h);
  }
  if (order.sort) {
    const auto& metric = find_stats_metric(*order.sort, "--sort");
    // NaN (a figure the head lacks) sorts last either way; ties keep forward order.
    std::stable_sort(out.begin(), out.end(), [&](const HeadStats& a, const HeadStats& b) {
      const double x = metric.value(a), y = metric.value(b);
      if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
      return order.ascending ? x < y : x > y;
    });
  }
  if (order.top > 0 && out.size() > static_cast<size_t>(order.top)) out.resize(order.top);
  return out;
}

}  // namespace attnviz
