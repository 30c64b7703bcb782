// Streaming per-head statistics: each block's rows are folded into running sums, then dropped.
#include "attnviz/analysis/head_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace attnviz {

const char* role_name(HeadRole role) {
  switch (role) {
    case HeadRole::broad:
      return "broad";
    case HeadRole::sink:
      return "sink";
    case HeadRole::previous:
      return "previous-token";
    case HeadRole::diagonal:
      return "self";
    case HeadRole::concentrated:
      return "concentrated";
    case HeadRole::mixed:
      return "mixed";
  }
  return "mixed";
}

std::optional<HeadRole> parse_role(const std::string& name) {
  for (HeadRole r : {HeadRole::broad, HeadRole::sink, HeadRole::previous, HeadRole::diagonal,
                     HeadRole::concentrated, HeadRole::mixed}) {
    if (name == role_name(r)) return r;
  }
  return std::nullopt;
}

void HeadStats::merge(const HeadStats& other) {
  if (heads == 0) {
    *this = other;
    return;
  }
  heads += other.heads;
  fully_masked_rows += other.fully_masked_rows;
  single_key_rows += other.single_key_rows;
  non_finite_rows += other.non_finite_rows;
  scaled.merge(other.scaled);
  unscaled.merge(other.unscaled);
  raw_logits.merge(other.raw_logits);
  scaled_logits.merge(other.scaled_logits);
  predicted_raw_variance.merge(other.predicted_raw_variance);
  predicted_scaled_variance.merge(other.predicted_scaled_variance);
  q_variance.merge(other.q_variance);
  k_variance.merge(other.k_variance);
}

// A uniform-looking head is "broad" even when short rows put much weight on key 0; otherwise the
// key position holding the most mean weight names the role if it holds at least k_role_mass;
// otherwise a head whose rows still put most weight on one key is "concentrated".
HeadRole HeadStats::role() const {
  const auto mean_or_zero = [](const Summary& s) { return s.count == 0 ? 0.0 : s.mean(); };
  if (scaled.entropy_normalized.count > 0 &&
      scaled.entropy_normalized.mean() >= k_role_broad_entropy) {
    return HeadRole::broad;
  }
  const std::pair<double, HeadRole> positional[] = {
      {mean_or_zero(scaled.first_key), HeadRole::sink},
      {mean_or_zero(scaled.previous), HeadRole::previous},
      {mean_or_zero(scaled.diagonal), HeadRole::diagonal}};
  const auto best =
      std::max_element(std::begin(positional), std::end(positional),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
  if (best->first >= k_role_mass) return best->second;
  if (mean_or_zero(scaled.max_weight) >= k_role_mass) return HeadRole::concentrated;
  return HeadRole::mixed;
}

void StatsCollector::begin_map(const MapInfo& info) {
  active_ = options_.selection.matches(info.id);
  if (!active_) return;
  HeadStats h;
  h.id = info.id;
  h.heads = 1;
  h.n_query = info.n_query;
  h.n_key = info.n_key;
  h.d_k = info.d_head;
  h.scale = info.scale;
  h.mask = info.mask->describe();
  heads_.push_back(std::move(h));
  allowed_.assign(static_cast<size_t>(info.n_key), 0);
  logits_.assign(static_cast<size_t>(info.n_key), 0.0);
  counterfactual_.assign(static_cast<size_t>(info.n_key), 0.0f);
}

namespace {
// Population variance of every component of a head's q or k (what the seeds' sqrt(d_k) argument uses).
float component_variance(ConstMatrixRef m) {
  const double n = static_cast<double>(m.size());
  if (n == 0) return 0.0f;
  const double mean = m.cast<double>().sum() / n;
  return static_cast<float>((m.cast<double>().array() - mean).square().sum() / n);
}
}  // namespace

void StatsCollector::queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) {
  if (!active_) return;
  HeadStats& h = heads_.back();
  const float q_var = component_variance(q), k_var = component_variance(k);
  // Independent q, k components: var(q·k) = Σ_d var(q_d k_d) ≈ d_k · var(q) · var(k)
  const double predicted = double(info.d_head) * q_var * k_var;
  h.predicted_raw_variance.add(predicted);
  h.predicted_scaled_variance.add(double(info.scale) * info.scale * predicted);
  h.q_variance.add(q_var);
  h.k_variance.add(k_var);
}

void StatsCollector::on_block(const AttentionBlock& block) {
  if (!active_) return;
  HeadStats& h = heads_.back();
  const MapInfo& info = *block.info;
  const Mask& mask = *info.mask;
  const int n_key = info.n_key;
  const double inv_scale = info.scale != 0.0f ? 1.0 / info.scale : std::nan("");
  const double inv_temperature = 1.0 / options_.temperature;
  for (int i = block.row_begin; i < block.row_end; ++i) {
    const Eigen::Index r = i - block.row_begin;
    const std::span<const float> probs(block.probs.row(r).data(), static_cast<size_t>(n_key));
    const float* scores = block.scores.row(r).data();
    int n_allowed = 0;
    bool broken = false;  // a NaN / inf weight, or a NaN / +inf score: the row has no figures
    for (int j = 0; j < n_key; ++j) {
      allowed_[j] = mask.allowed(i, j, n_key) ? 1 : 0;
      n_allowed += allowed_[j];
      logits_[j] = allowed_[j] ? double(scores[j]) : 0.0;
      broken = broken || (allowed_[j] && (!std::isfinite(probs[j]) || std::isnan(scores[j]) ||
                                          scores[j] == std::numeric_limits<float>::infinity()));
    }
    if (n_allowed == 0) {
      ++h.fully_masked_rows;
      continue;
    }
    if (broken) {  // never averaged in as a made-up 0 (run, stats and check warn about it)
      ++h.non_finite_rows;
      continue;
    }
    if (n_allowed == 1) {  // no choice (row 0 of a causal map): one-hot by construction, no figures
      ++h.single_key_rows;
      continue;
    }
    h.scaled.add(row_figures(probs, logits_, allowed_, i, options_.saturation));
    for (int j = 0; j < n_key; ++j) {
      if (!allowed_[j]) continue;
      h.scaled_logits.add(logits_[j]);
      logits_[j] *= inv_scale;  // raw q·k = scores / scale
      h.raw_logits.add(logits_[j]);
      logits_[j] *= inv_temperature;  // the counterfactual logits q·k / T
    }
    masked_softmax(logits_, allowed_, counterfactual_);
    h.unscaled.add(row_figures(counterfactual_, logits_, allowed_, i, options_.saturation));
  }
}

void StatsCollector::end_map(const MapInfo& /*info*/) {
  active_ = false;
}

std::vector<HeadStats> pool_by_layer(const std::vector<HeadStats>& heads) {
  std::vector<HeadStats> layers;
  std::map<std::tuple<std::string, int, int>, size_t> index;  // (stack, layer, site) → position
  for (const auto& h : heads) {
    const auto key = std::make_tuple(h.id.stack, h.id.layer, static_cast<int>(h.id.site));
    const auto [it, inserted] = index.try_emplace(key, layers.size());
    if (inserted) layers.emplace_back();
    layers[it->second].merge(h);
  }
  return layers;
}

HeadStats pool_all(const std::vector<HeadStats>& heads) {
  HeadStats all;
  for (const auto& h : heads) all.merge(h);
  return all;
}

}  // namespace attnviz
