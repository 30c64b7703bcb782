// Streaming per-head statistics: each block's rows are folded into running sums, then dropped.
#include "attnviz/analysis/head_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace attnviz {

namespace {
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

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
  sink_logit_weight.merge(other.sink_logit_weight);
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
  h.additive = info.additive != nullptr;
  h.mask = info.mask->describe();
  heads_.push_back(std::move(h));
  // One more entry for a sink logit, an outcome of the softmax that is no key.
  const auto n = static_cast<size_t>(info.n_key) + (info.sink_logit ? 1 : 0);
  allowed_.assign(n, 0);
  bias_by_offset_ = info.relative_bias
                        ? info.relative_bias->by_offset(info.id.head, info.n_query, info.n_key)
                        : std::vector<float>{};
  logits_.assign(n, 0.0);
  probs_.assign(n, 0.0f);
  counterfactual_.assign(n, 0.0f);
}

namespace {
// Population variance of every component of a head's q or k (what the sqrt(d_k) argument is about:
// unit-variance components give q·k a variance of d_k).
float component_variance(ConstMatrixRef m) {
  const double n = static_cast<double>(m.size());
  if (n == 0) return 0.0f;
  const double mean = m.cast<double>().sum() / n;
  return static_cast<float>((m.cast<double>().array() - mean).square().sum() / n);
}
}  // namespace

void StatsCollector::queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) {
  if (!active_ || info.additive) return;  // the additive score's q and k have no product
  HeadStats& h = heads_.back();
  const float q_var = component_variance(q), k_var = component_variance(k);
  // Independent q, k components: var(q·k) = Σ_d var(q_d k_d) ≈ d_k · var(q) · var(k)
  const double predicted = double(info.d_head) * q_var * k_var;
  h.predicted_raw_variance.add(predicted);
  h.predicted_scaled_variance.add(double(info.scale) * info.scale * predicted);
  h.q_variance.add(q_var);
  h.k_variance.add(k_var);
}

namespace {
// Mean and Σ (x − mean)² of n values as a Moments, to merge a row at once.
Moments row_moments(int64_t n, double mean, double m2) {
  Moments m;
  m.count = n;
  m.mean = mean;
  m.m2 = m2;
  return m;
}
}  // namespace

void StatsCollector::on_block(const AttentionBlock& block) {
  if (!active_) return;
  const MapInfo& info = *block.info;
  const Mask& mask = *info.mask;
  const int n_key = info.n_key;
  // The kernel needs c = 1 / (scale · T) finite and > 0 (the counterfactual's top score is s's);
  // otherwise (--qk-scale 0 or negative) every row takes the scalar path.
  const double c = 1.0 / (double(info.scale) * options_.temperature);
  // A sink logit is one more outcome of each row's softmax, which the kernel's sums do not hold:
  // such maps take the scalar path, the sink appended as an outcome; so do maps with a relative
  // position bias (T5), whose q·k is the score less the bias, cell by cell.
  const bool kernel = std::isfinite(c) && c > 0.0 && std::isfinite(static_cast<float>(c)) &&
                      !info.sink_logit && !info.relative_bias;
  for (int i = block.row_begin; i < block.row_end; ++i) {
    const Eigen::Index r = i - block.row_begin;
    const float* probs = block.probs.row(r).data();
    const float* scores = block.scores.row(r).data();
    auto [lo, hi] = mask.key_range(i, n_key);
    const float* p = probs + lo;
    const float* s = scores + lo;
    size_t n = static_cast<size_t>(hi - lo);
    if (mask.matrix && kernel) {  // the allowed keys of the range, packed
      packed_probs_.clear();
      packed_scores_.clear();
      for (int j = lo; j < hi; ++j) {
        if ((*mask.matrix)(i, j) == 0) continue;
        packed_probs_.push_back(probs[j]);
        packed_scores_.push_back(scores[j]);
      }
      p = packed_probs_.data();
      s = packed_scores_.data();
      n = packed_probs_.size();
    }
    if (!kernel || n < 2 || !add_row(block, i, p, s, n, c)) {
      add_row_scalar(block, i);  // no choice, NaN / inf, or no kernel: counted as they always were
    }
  }
}

bool StatsCollector::add_row(const AttentionBlock& block, int i, const float* p, const float* s,
                             size_t n, double c) {
  // Float c: d = c·(s − top1) in float errs by ~1e-7·|d|, the order of the float scores' own
  // rounding (ulp(s)·c), so the counterfactual is as exact as its inputs.
  const RowSums sums = row_sums(p, s, n, static_cast<float>(c));
  // The entropy takes p as the softmax of s (the event's promise); a row that is visibly not one
  // (weights not summing to 1, none on the top score) keeps the key-by-key figures.
  if (!sums.finite || !(sums.p_top > 0.0f) || std::fabs(sums.p_sum - 1.0) > 1e-3) return false;
  HeadStats& h = heads_.back();
  const MapInfo& info = *block.info;
  const Mask& mask = *info.mask;
  const int n_key = info.n_key;
  const float* probs = block.probs.row(i - block.row_begin).data();
  const float* scores = block.scores.row(i - block.row_begin).data();
  const double top1 = sums.top1, z = static_cast<double>(sums.n_at_top) + sums.rest_e;
  KeyWeights model{0.0, k_nan, k_nan}, counterfactual{0.0, k_nan, k_nan};
  const auto set = [&](double& model_weight, double& counterfactual_weight, int j) {
    const bool allowed = mask.allowed(i, j, n_key);
    model_weight = allowed ? double(probs[j]) : 0.0;
    counterfactual_weight = allowed ? std::exp(c * (double(scores[j]) - top1)) / z : 0.0;
  };
  if (n_key > 0) set(model.first_key, counterfactual.first_key, 0);
  if (i >= 1 && i - 1 < n_key) set(model.previous, counterfactual.previous, i - 1);
  if (i < n_key) set(model.diagonal, counterfactual.diagonal, i);
  h.scaled.add(figures_of_probs(sums, model, options_.saturation));
  if (info.additive) return true;  // no q·k: no counterfactual scale, no logit moments of q·k
  h.unscaled.add(figures_of_counterfactual(sums, c, counterfactual, options_.saturation));
  // Logit moments by row (Chan's merge), raw q·k = s / scale exactly as a scaling of them.
  const double mean = sums.score_sum / double(sums.n), inv_scale = 1.0 / double(info.scale);
  h.scaled_logits.merge(row_moments(sums.n, mean, sums.score_m2));
  h.raw_logits.merge(row_moments(sums.n, mean * inv_scale, sums.score_m2 * inv_scale * inv_scale));
  return true;
}

void StatsCollector::add_row_scalar(const AttentionBlock& block, int i) {
  HeadStats& h = heads_.back();
  const MapInfo& info = *block.info;
  const Mask& mask = *info.mask;
  const int n_key = info.n_key;
  const double inv_scale = info.scale != 0.0f ? 1.0 / info.scale : std::nan("");
  const double inv_temperature = 1.0 / options_.temperature;
  const Eigen::Index r = i - block.row_begin;
  const float* scores = block.scores.row(r).data();
  // The row's weights, and the sink's as one more outcome (gpt-oss): its logit σ is a scaled
  // score's peer, learned rather than q·k, so the counterfactual leaves it unscaled (σ / T).
  std::copy_n(block.probs.row(r).data(), n_key, probs_.begin());
  const std::span<const float> probs(probs_);
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
    return;
  }
  const bool sink = info.sink_logit.has_value();
  if (sink) {
    const float sigma = *info.sink_logit, p_sink = block.sink(i);
    allowed_[n_key] = 1;
    logits_[n_key] = sigma;
    probs_[n_key] = p_sink;
    ++n_allowed;
    broken = broken || !std::isfinite(p_sink) || !std::isfinite(sigma);
  }
  if (broken) {  // never averaged in as a made-up 0 (run, stats and check warn about it)
    ++h.non_finite_rows;
    return;
  }
  if (n_allowed == 1) {  // no choice (row 0 of a causal map): one-hot by construction, no figures
    ++h.single_key_rows;
    return;
  }
  h.scaled.add(row_figures(probs, logits_, allowed_, i, options_.saturation, n_key));
  if (sink) h.sink_logit_weight.add(probs_[n_key]);
  if (info.additive) return;  // no q·k: no counterfactual scale, no logit moments of q·k
  for (int j = 0; j < n_key; ++j) {
    if (!allowed_[j]) continue;
    h.scaled_logits.add(logits_[j]);
    // T5's bias b is added after the scale: raw q·k = (s − b) / scale, and the counterfactual
    // changes the scale alone, q·k / T + b.
    const double bias =
        bias_by_offset_.empty() ? 0.0 : bias_by_offset_[size_t(j - i + info.n_query - 1)];
    logits_[j] = (logits_[j] - bias) * inv_scale;  // raw q·k = scores / scale
    h.raw_logits.add(logits_[j]);
    logits_[j] = logits_[j] * inv_temperature + bias;  // the counterfactual logits q·k / T
  }
  if (sink) logits_[n_key] *= inv_temperature;
  masked_softmax(logits_, allowed_, counterfactual_);
  h.unscaled.add(row_figures(counterfactual_, logits_, allowed_, i, options_.saturation, n_key));
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
