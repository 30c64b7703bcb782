// Head statistics streamed over blocks, against hand-built maps: q·k variance of random
// unit-variance vectors, a causal first row, a constructed sink, previous-token and broad heads,
// the counterfactual.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/compute/attention.hpp"
#include "attnviz/core/random.hpp"
#include "emit_blocks.hpp"
#include "row_reference.hpp"

using namespace attnviz;

namespace {

MapInfo make_info(int n_q, int n_k, int d_k, float scale, const Mask& mask, int layer = 0,
                  int head = 0) {
  MapInfo info;
  info.id.layer = layer;
  info.id.head = head;
  info.n_heads = head + 1;
  info.n_query = n_q;
  info.n_key = n_k;
  info.d_head = d_k;
  info.scale = scale;
  info.mask = std::make_shared<const Mask>(mask);
  return info;
}

// Emits one map whose scaled scores are `scores`, with the softmax the compute uses, in blocks.
void emit_map(AttentionSink& sink, const MapInfo& info, Matrix scores, int block_rows) {
  Matrix probs(scores.rows(), scores.cols());
  for (int i = 0; i < scores.rows(); ++i) {
    masked_softmax_row(scores.row(i).data(), probs.row(i).data(), info.n_key, i, *info.mask);
  }
  attnviz::test::emit_blocks(sink, info, scores, probs, block_rows);
}

HeadStats stats_of(const MapInfo& info, const Matrix& scores, StatsOptions options = {},
                   int block_rows = 3) {
  StatsCollector c(options);
  emit_map(c, info, scores, block_rows);
  REQUIRE(c.heads().size() == 1);
  return c.heads()[0];
}

}  // namespace

TEST_CASE("analysis heads: random unit-variance q, k with d_k = 64: var(q·k) ≈ 64, scaled ≈ 1") {
  Random rng(42);
  const int n = 128, d_k = 64;  // 16,384 (q, k) pairs
  Matrix q(n, d_k), k(n, d_k), v = Matrix::Zero(n, 1), out(n, 1);
  for (Eigen::Index i = 0; i < q.size(); ++i) q.data()[i] = rng.normal();
  for (Eigen::Index i = 0; i < k.size(); ++i) k.data()[i] = rng.normal();
  const Mask mask;
  const MapInfo info = make_info(n, n, d_k, 1.0f / 8.0f, mask);
  StatsCollector c(StatsOptions{});
  c.begin_map(info);
  c.queries_and_keys(info, q, k);
  scaled_dot_product_attention(
      out, q, k, v, mask, info.scale, 50,
      [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p, const float*) {
        c.on_block(AttentionBlock(info, r0, r1, s, p));
      });
  c.end_map(info);
  const HeadStats& h = c.heads()[0];
  CHECK(h.raw_logits.count == n * n);
  CHECK(h.raw_logits.variance() == doctest::Approx(64.0).epsilon(0.10));
  CHECK(h.scaled_logits.variance() == doctest::Approx(1.0).epsilon(0.10));
  CHECK(h.q_variance.mean() == doctest::Approx(1.0).epsilon(0.05));  // N(0, 1) components
  CHECK(h.k_variance.mean() == doctest::Approx(1.0).epsilon(0.05));
  CHECK(h.predicted_raw_variance.mean() == doctest::Approx(64.0).epsilon(0.10));  // d_k · 1 · 1
  CHECK(h.predicted_scaled_variance.mean() == doctest::Approx(1.0).epsilon(0.10));
  // Unscaled, logits of standard deviation 8 make most rows far sharper than scaled ones.
  CHECK(h.unscaled.saturated_rows > h.scaled.saturated_rows);
  CHECK(h.unscaled.entropy.mean() < h.scaled.entropy.mean());
}

TEST_CASE(
    "analysis heads: var(q), var(k) and d_k·var(q)·var(k) of the queries and keys forward hands "
    "over") {
  // q's components {1, -1, 3, -3}: mean 0, population variance (1 + 1 + 9 + 9) / 4 = 5.
  // k's components {2, 2, 2, 6}: mean 3, variance (1 + 1 + 1 + 9) / 4 = 3. d_k = 2: 2 · 5 · 3 = 30.
  Matrix q(2, 2), k(2, 2);
  q << 1, -1, 3, -3;
  k << 2, 2, 2, 6;
  const Mask mask;
  const MapInfo info = make_info(2, 2, 2, 0.5f, mask);
  StatsCollector c(StatsOptions{});
  c.begin_map(info);
  c.queries_and_keys(info, q, k);
  Matrix scores = (q * k.transpose()) * 0.5f, probs(2, 2);
  for (int i = 0; i < 2; ++i)
    masked_softmax_row(scores.row(i).data(), probs.row(i).data(), 2, i, mask);
  c.on_block(AttentionBlock(info, 0, 2, scores, probs));
  c.end_map(info);
  const HeadStats& h = c.heads().at(0);
  CHECK(h.q_variance.mean() == doctest::Approx(5.0));
  CHECK(h.k_variance.mean() == doctest::Approx(3.0));
  CHECK(h.predicted_raw_variance.mean() == doctest::Approx(30.0));
  CHECK(h.predicted_scaled_variance.mean() == doctest::Approx(7.5));  // 0.5² · 30
}

TEST_CASE(
    "analysis heads: equal causal scores: row 0 has no choice and no figures, row i is uniform "
    "over "
    "i+1") {
  Mask mask;
  mask.causal = true;
  const HeadStats h = stats_of(make_info(4, 4, 4, 0.5f, mask), Matrix::Zero(4, 4));
  // Row 0 sees one key: weight 1 by construction, no evidence of anything; counted apart.
  CHECK(h.single_key_rows == 1);
  CHECK(h.scaled.rows == 3);
  CHECK(h.scaled.choice_rows == 3);
  // Max weights 1/2, 1/3, 1/4: none saturated.
  CHECK(h.scaled.saturated_rows == 0);
  CHECK(h.scaled.saturated_share() == 0.0);
  CHECK(h.scaled.max_weight.mean() == doctest::Approx((1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 3));
  CHECK(h.scaled.max_weight.min == doctest::Approx(0.25));
  CHECK(h.scaled.entropy.mean() ==
        doctest::Approx((std::log(2.0) + std::log(3.0) + std::log(4.0)) / 3));
  CHECK(h.scaled.entropy.min == doctest::Approx(std::log(2.0)));
  CHECK(h.scaled.effective_keys.mean() == doctest::Approx(3.0));  // (2 + 3 + 4) / 3
  CHECK(h.scaled.entropy_normalized.count == 3);
  CHECK(h.scaled.entropy_normalized.mean() == doctest::Approx(1.0));
  // Uniform over n: ‖J‖_F² = Σp² − 2Σp³ + (Σp²)² = 1/n − 1/n²; smallest at n = 4: √(3/16).
  CHECK(h.scaled.jacobian_norm.min == doctest::Approx(std::sqrt(3.0 / 16.0)));
  CHECK(h.scaled.previous.mean() == doctest::Approx((1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 3));
  CHECK(h.scaled.first_key.mean() == doctest::Approx((1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 3));
  CHECK(h.raw_logits.count == 9);  // 2 + 3 + 4 allowed cells of the rows with a choice
  CHECK(h.raw_logits.variance() == 0.0);
  CHECK(h.role() == HeadRole::broad);
}

TEST_CASE("analysis heads: a large first-key logit makes a sink that saturates only unscaled") {
  // q = 1⁴ for every row, k_0 = 3·1⁴, other keys 0: q·k_0 = 12, q·k_j = 0; scale 1/sqrt(4) = 1/2.
  const int n = 8;
  Matrix q = Matrix::Ones(n, 4), k = Matrix::Zero(n, 4);
  k.row(0).setConstant(3.0f);
  const Matrix scores = 0.5f * q * k.transpose();
  const Mask mask;
  const HeadStats h = stats_of(make_info(n, n, 4, 0.5f, mask), scores);
  // scaled: p_0 = e⁶ / (e⁶ + 7) = 0.98297… < 0.99; unscaled: e¹² / (e¹² + 7) = 0.99957… >= 0.99
  const double p_scaled = std::exp(6.0) / (std::exp(6.0) + 7),
               p_unscaled = std::exp(12.0) / (std::exp(12.0) + 7);
  CHECK(h.scaled.first_key.mean() == doctest::Approx(p_scaled));
  CHECK(h.unscaled.first_key.mean() == doctest::Approx(p_unscaled));
  CHECK(h.role() == HeadRole::sink);
  CHECK(h.scaled.saturated_rows == 0);
  CHECK(h.unscaled.saturated_rows == n);
  CHECK(h.scaled.top_gap.mean() == doctest::Approx(6.0));
  CHECK(h.unscaled.top_gap.mean() == doctest::Approx(12.0));
  // the entropy falls: H = −p log p − (1 − p) log((1 − p)/7)
  const auto entropy = [](double p) { return -p * std::log(p) - (1 - p) * std::log((1 - p) / 7); };
  CHECK(h.scaled.entropy.mean() == doctest::Approx(entropy(p_scaled)));
  CHECK(h.unscaled.entropy.mean() == doctest::Approx(entropy(p_unscaled)));
}

TEST_CASE("analysis heads: --temperature divides q·k: [8, 0] saturates at T = 1 but not at T = 2") {
  const Mask mask;
  Matrix scores(1, 2);
  scores << 1.0f, 0.0f;  // scale 1/8 of q·k = [8, 0]
  const MapInfo info = make_info(1, 2, 64, 1.0f / 8, mask);
  HeadStats h = stats_of(info, scores);
  CHECK(h.scaled.max_weight.mean() ==
        doctest::Approx(std::exp(1.0) / (1 + std::exp(1.0))));                       // 0.731
  CHECK(h.unscaled.max_weight.mean() == doctest::Approx(1 / (1 + std::exp(-8.0))));  // 0.99966
  CHECK(h.unscaled.saturated_rows == 1);
  h = stats_of(info, scores, StatsOptions{.saturation = 0.99, .temperature = 2.0, .selection = {}});
  CHECK(h.unscaled.max_weight.mean() == doctest::Approx(1 / (1 + std::exp(-4.0))));  // 0.98201
  CHECK(h.unscaled.saturated_rows == 0);
}

TEST_CASE(
    "analysis heads: constructed previous-token and self heads are labelled, thresholds hold") {
  const int n = 6;
  const Mask mask;
  Matrix prev = Matrix::Zero(n, n), diag = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    prev(i, std::max(0, i - 1)) = 10.0f;
    diag(i, i) = 10.0f;
  }
  const MapInfo info = make_info(n, n, 4, 0.5f, mask);
  CHECK(stats_of(info, prev).role() == HeadRole::previous);
  CHECK(stats_of(info, diag).role() == HeadRole::diagonal);
  // Weight 0.45 on the diagonal (below k_role_mass), 5 × 0.11 elsewhere: H / ln 6 = 0.878 < 0.9,
  // so neither broad, positional nor concentrated.
  Matrix mild = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) mild(i, i) = static_cast<float>(std::log(0.45 / 0.11));
  const HeadStats h = stats_of(info, mild);
  CHECK(h.scaled.diagonal.mean() == doctest::Approx(0.45));
  CHECK(h.scaled.entropy_normalized.mean() == doctest::Approx(0.878).epsilon(1e-3));
  CHECK(h.role() == HeadRole::mixed);
}

TEST_CASE("analysis heads: figures do not depend on the block size, unselected maps are skipped") {
  Random rng(7);
  Matrix s(9, 9);
  for (Eigen::Index i = 0; i < s.size(); ++i) s.data()[i] = 3.0f * rng.normal();
  Mask mask;
  mask.causal = true;
  mask.n_pad_keys = 1;
  const MapInfo info = make_info(9, 9, 4, 0.5f, mask);
  const HeadStats a = stats_of(info, s, {}, 1), b = stats_of(info, s, {}, 256);
  CHECK(a.scaled.entropy.sum == doctest::Approx(b.scaled.entropy.sum));
  CHECK(a.unscaled.jacobian_norm.sum == doctest::Approx(b.unscaled.jacobian_norm.sum));
  CHECK(a.raw_logits.variance() == doctest::Approx(b.raw_logits.variance()));
  CHECK(a.fully_masked_rows == 0);
  CHECK(a.single_key_rows == 1);  // row 0 sees key 0 only
  CHECK(a.scaled.rows == 8);

  StatsOptions only_head_1;
  only_head_1.selection.head = 1;
  StatsCollector c(only_head_1);
  emit_map(c, make_info(9, 9, 4, 0.5f, mask, 0, 0), s, 4);
  emit_map(c, make_info(9, 9, 4, 0.5f, mask, 0, 1), s, 4);
  REQUIRE(c.heads().size() == 1);
  CHECK(c.heads()[0].id.head == 1);
}

TEST_CASE("analysis heads: fully masked rows get no figures, heads pool per layer and overall") {
  MaskMatrix m = MaskMatrix::Ones(3, 3);
  m.row(1).setZero();
  Mask mask;
  mask.matrix = m;
  StatsCollector c(StatsOptions{});
  for (int layer = 0; layer < 3; ++layer) {
    for (int head = 0; head < 2; ++head) {
      MapInfo info = make_info(3, 3, 4, 0.5f, mask, layer, head);
      if (layer == 2) info.id.stack = "decoder";
      emit_map(c, info, Matrix::Zero(3, 3), 2);
    }
  }
  REQUIRE(c.heads().size() == 6);
  CHECK(c.heads()[0].fully_masked_rows == 1);
  CHECK(c.heads()[0].scaled.rows == 2);
  const auto layers = pool_by_layer(c.heads());
  REQUIRE(layers.size() == 3);
  CHECK(layers[1].id.layer == 1);
  CHECK(layers[2].id.stack == "decoder");
  CHECK(layers[0].heads == 2);
  CHECK(layers[0].scaled.rows == 4);
  CHECK(layers[0].fully_masked_rows == 2);
  const HeadStats all = pool_all(c.heads());
  CHECK(all.heads == 6);
  CHECK(all.scaled.rows == 12);
  CHECK(all.scaled.entropy.mean() ==
        doctest::Approx(std::log(3.0)));  // every live row uniform over 3
}

TEST_CASE("analysis heads: a row with NaN weights gets no figures and is counted apart") {
  Mask none;
  Matrix scores = Matrix::Zero(3, 3);
  scores(1, 2) = std::numeric_limits<float>::quiet_NaN();  // row 1's softmax is all NaN
  const HeadStats h = stats_of(make_info(3, 3, 4, 0.5f, none), scores);
  CHECK(h.non_finite_rows == 1);
  CHECK(h.scaled.rows == 2);
  // Rows 0 and 2 are uniform over 3 keys: H = ln 3 exactly, not pulled down by a made-up 0.
  CHECK(h.scaled.entropy.mean() == doctest::Approx(std::log(3.0)));
}

namespace {
// RowSummary of one map row by row with the key-by-key reference (row_figures, and the
// counterfactual through masked_softmax in double), as stats computed it before its kernel.
HeadStats reference_stats(const MapInfo& info, const Matrix& scores, const Matrix& probs) {
  HeadStats h;
  const Mask& mask = *info.mask;
  const auto n_key = static_cast<size_t>(info.n_key);
  for (int i = 0; i < info.n_query; ++i) {
    std::vector<uint8_t> allowed(n_key);
    std::vector<double> logits(n_key, 0.0);
    for (size_t j = 0; j < n_key; ++j) {
      allowed[j] = mask.allowed(i, static_cast<int64_t>(j), info.n_key) ? 1 : 0;
      if (allowed[j]) logits[j] = scores(i, static_cast<Eigen::Index>(j));
    }
    const auto n_allowed = std::count(allowed.begin(), allowed.end(), 1);
    if (n_allowed == 0) ++h.fully_masked_rows;
    if (n_allowed == 1) ++h.single_key_rows;
    if (n_allowed < 2) continue;
    const std::span<const float> p(probs.row(i).data(), n_key);
    RowFigures scaled = row_figures(p, logits, allowed, i, 0.99);
    std::vector<double> live;  // row_figures' Jacobian cancels near one-hot rows: the explicit one
    for (size_t j = 0; j < n_key; ++j) {
      if (allowed[j]) live.push_back(p[j]);
    }
    scaled.jacobian_norm = attnviz::test::explicit_jacobian(live, false);
    h.scaled.add(scaled);
    for (size_t j = 0; j < n_key; ++j) {
      if (!allowed[j]) continue;
      h.scaled_logits.add(logits[j]);
      logits[j] /= info.scale;
    }
    h.unscaled.add(attnviz::test::double_softmax_figures(logits, allowed, i, 0.99));
  }
  return h;
}

void check_summary(const Summary& actual, const Summary& expected, const std::string& what) {
  CAPTURE(what);
  CHECK(actual.count == expected.count);
  CHECK(actual.sum == doctest::Approx(expected.sum).epsilon(1e-5).scale(1e-9));
  CHECK(actual.min == doctest::Approx(expected.min).epsilon(1e-5).scale(1e-9));
  CHECK(actual.max == doctest::Approx(expected.max).epsilon(1e-5).scale(1e-9));
}

void check_rows(const RowSummary& a, const RowSummary& x) {
  CHECK(a.rows == x.rows);
  CHECK(a.choice_rows == x.choice_rows);
  CHECK(a.saturated_rows == x.saturated_rows);
  CHECK(a.max_weight_histogram == x.max_weight_histogram);
  using Field = Summary RowSummary::*;
  const std::pair<const char*, Field> fields[] = {
      {"max_weight", &RowSummary::max_weight},
      {"entropy", &RowSummary::entropy},
      {"entropy_normalized", &RowSummary::entropy_normalized},
      {"effective_keys", &RowSummary::effective_keys},
      {"top_gap", &RowSummary::top_gap},
      {"jacobian_norm", &RowSummary::jacobian_norm},
      {"first_key", &RowSummary::first_key},
      {"previous", &RowSummary::previous},
      {"diagonal", &RowSummary::diagonal}};
  for (const auto& [name, field] : fields) check_summary(a.*field, x.*field, name);
}
}  // namespace

TEST_CASE("analysis heads: every mask's figures equal the key-by-key reference, row by row") {
  Random rng(19);
  MaskMatrix file = MaskMatrix::Ones(40, 37);
  for (Eigen::Index i = 0; i < file.size(); ++i)
    file.data()[i] = rng.uniform(0.0f, 1.0f) < 0.3f ? 0 : 1;
  file.row(5).setZero();  // a fully masked row
  file.row(6).setZero();
  file(6, 2) = 1;  // a one-key row
  Mask causal, padded, window, none, masked;
  causal.causal = true;
  padded.causal = true;
  padded.n_pad_keys = 3;
  window.window = 4;
  masked.matrix = file;
  for (const Mask* mask : {&causal, &padded, &window, &none, &masked}) {
    for (const int n_k : {40, 37}) {  // self- and cross-attention shapes (40 queries)
      if (mask == &masked && n_k != 37) continue;
      if (mask != &masked && mask->causal && n_k != 40) continue;
      CAPTURE(mask->describe());
      CAPTURE(n_k);
      Matrix scores(40, n_k);
      for (Eigen::Index i = 0; i < scores.size(); ++i) scores.data()[i] = 4.0f * rng.normal();
      const MapInfo info = make_info(40, n_k, 4, 0.5f, *mask);
      Matrix probs(40, n_k);
      for (int i = 0; i < 40; ++i)
        masked_softmax_row(scores.row(i).data(), probs.row(i).data(), n_k, i, *mask);
      StatsCollector c(StatsOptions{});
      attnviz::test::emit_blocks(c, info, scores, probs, 16);
      const HeadStats& a = c.heads().at(0);
      const HeadStats x = reference_stats(info, scores, probs);
      CHECK(a.fully_masked_rows == x.fully_masked_rows);
      CHECK(a.single_key_rows == x.single_key_rows);
      CHECK(a.non_finite_rows == 0);
      check_rows(a.scaled, x.scaled);
      check_rows(a.unscaled, x.unscaled);
      CHECK(a.scaled_logits.count == x.scaled_logits.count);
      // float sums of 16 terms a lane, then double: ~1e-7 of Σ |s| (the scores' standard deviation
      // is 4)
      CHECK(std::fabs(a.scaled_logits.mean - x.scaled_logits.mean) < 1e-6 * 4);
      CHECK(a.scaled_logits.variance() ==
            doctest::Approx(x.scaled_logits.variance()).epsilon(1e-6));
      CHECK(a.raw_logits.variance() ==
            doctest::Approx(4 * x.scaled_logits.variance()).epsilon(1e-6));
    }
  }
}
