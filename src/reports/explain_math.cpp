// The arithmetic `explain` shows beside the model's own numbers (see explain_math.hpp).
#include "explain_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz::detail {

CellMath cell_math(const HeadTrace& t, int i, int j) {
  CellMath c;
  for (Eigen::Index d = 0; d < t.q.cols(); ++d) {
    c.terms.push_back(static_cast<double>(t.q(i, d)) * static_cast<double>(t.k(j, d)));
    c.dot += c.terms.back();
  }
  c.scaled = c.dot * t.info.scale;
  if (t.info.relative_bias) {  // T5: the bias of the key's offset bucket, after the scale
    c.bias = t.info.relative_bias->at(t.info.id.head, i, j);
    c.scaled += c.bias;
  }
  if (t.info.softcap > 0)
    c.scaled = t.info.softcap * std::tanh(c.scaled / t.info.softcap);  // Gemma 2's cap
  c.allowed = std::isfinite(t.scores(i, j));
  // A sink logit σ (gpt-oss) is one more term of the softmax, on no key.
  const auto sink = t.info.sink_logit;
  c.row_max = sink ? static_cast<double>(*sink) : -INFINITY;
  for (Eigen::Index m = 0; m < t.scores.cols(); ++m) {
    if (std::isfinite(t.scores(i, m)))
      c.row_max = std::max(c.row_max, static_cast<double>(t.scores(i, m)));
  }
  if (sink) c.exp_sum = std::exp(static_cast<double>(*sink) - c.row_max);
  for (Eigen::Index m = 0; m < t.scores.cols(); ++m) {
    if (std::isfinite(t.scores(i, m)))
      c.exp_sum += std::exp(static_cast<double>(t.scores(i, m)) - c.row_max);
  }
  c.weight =
      c.allowed ? std::exp(static_cast<double>(t.scores(i, j)) - c.row_max) / c.exp_sum : 0.0;
  return c;
}

// var(q·k) as `stats` defines it (StatsCollector's raw_logits): the population variance over the
// allowed cells of the rows with a choice (two or more allowed keys, none of their scores or
// weights NaN or infinite); masked cells are no score the softmax sees. NaN when no row has a
// choice.
double qk_variance(const Matrix& raw, const HeadTrace& t) {
  const Mask& mask = *t.info.mask;
  const int n_key = static_cast<int>(raw.cols());
  double s = 0, s2 = 0, n = 0;
  for (Eigen::Index i = 0; i < raw.rows(); ++i) {
    int allowed = 0;
    bool broken = false;
    for (int j = 0; j < n_key; ++j) {
      if (!mask.allowed(static_cast<int>(i), j, n_key)) continue;
      ++allowed;
      broken = broken || std::isnan(t.scores(i, j)) ||
               t.scores(i, j) == std::numeric_limits<float>::infinity() ||
               !std::isfinite(t.probs(i, j));
    }
    if (allowed < 2 || broken) continue;
    for (int j = 0; j < n_key; ++j) {
      if (!mask.allowed(static_cast<int>(i), j, n_key)) continue;
      const double v = raw(i, j);
      s += v, s2 += v * v, n += 1;
    }
  }
  return n > 0 ? s2 / n - (s / n) * (s / n) : std::nan("");
}

// B_h [n_query, n_key]: what the relative position bias adds to each score, and the buckets.
Matrix bias_matrix(const RelativeBias& b, int head, Eigen::Index nq, Eigen::Index nk,
                   Matrix* buckets) {
  Matrix m(nq, nk);
  if (buckets) buckets->resize(nq, nk);
  for (Eigen::Index i = 0; i < nq; ++i) {
    for (Eigen::Index j = 0; j < nk; ++j) {
      m(i, j) = b.at(head, static_cast<int>(i), static_cast<int>(j));
      if (buckets) (*buckets)(i, j) = static_cast<float>(b.bucket(static_cast<int>(j - i)));
    }
  }
  return m;
}

// "Q·Kᵀ / √d_k", "Q·Kᵀ" (T5), "0.0625·Q·Kᵀ", with "+ B" for a relative position bias.
std::string score_formula(const MapInfo& info, Eigen::Index dk) {
  const bool default_scale = std::abs(info.scale * std::sqrt(static_cast<double>(dk)) - 1.0) < 1e-6;
  std::string s = default_scale        ? "Q·Kᵀ / √d_k"
                  : info.scale == 1.0f ? "Q·Kᵀ"
                                       : fmt::format("{:g}·Q·Kᵀ", info.scale);
  if (info.relative_bias) s += " + B";
  return s;
}

}  // namespace attnviz::detail
