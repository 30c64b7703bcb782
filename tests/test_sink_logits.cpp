// Learned sink logits (gpt-oss's per-head `sinks`): one more logit in each row's softmax whose
// weight goes to no key, so a row's weights sum to 1 − p_sink. Checked against hand calculations:
// with W_q = 0 every score is 0, so a row over n keys gives each key 1 / (n + e^σ) and the sink
// e^σ / (n + e^σ). With σ = ln 2: row 0 (one key under a causal mask) 1/3 and the sink 2/3; row 1
// 1/4, 1/4 and the sink 1/2.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/analysis/check.hpp"
#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/analysis/head_trace.hpp"
#include "attnviz/analysis/rollout.hpp"
#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/multi_head.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/reports/explain_report.hpp"
#include "attnviz/reports/stats_report.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "check_close.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"  // contains
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

const float k_ln2 = std::log(2.0f);

// Every block a sink sees, whole, with its sink weights.
struct Blocks : AttentionSink {
  MapInfo info;
  Matrix probs;
  std::vector<float> sink;
  void begin_map(const MapInfo& i) override {
    info = i;
    probs.resize(i.n_query, i.n_key);
    sink.assign(static_cast<size_t>(i.n_query), -1.0f);
  }
  void on_block(const AttentionBlock& b) override {
    probs.middleRows(b.row_begin, b.row_end - b.row_begin) = b.probs;
    for (int i = b.row_begin; i < b.row_end; ++i) sink[static_cast<size_t>(i)] = b.sink(i);
  }
};

// One head over 2 tokens, d 2: W_q = 0, W_k = W_v = W_O = I, sink σ, causal.
AttentionWeights hand_attention(float sigma) {
  AttentionWeights w;
  w.q = Linear{Matrix::Zero(2, 2), {}};
  w.k = Linear{Matrix::Identity(2, 2), {}};
  w.v = Linear{Matrix::Identity(2, 2), {}};
  w.out = Linear{Matrix::Identity(2, 2), {}};
  w.sink_logits = RowVector::Constant(1, sigma);
  return w;
}

Matrix input() {
  Matrix x(2, 2);
  x << 1, 0, 0, 2;
  return x;
}

Matrix run(const AttentionWeights& w, AttentionSink* sink, int block_rows = 256) {
  AttentionSetup s;
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  s.mask = mask;
  s.block_rows = block_rows;
  s.sink = sink;
  return multi_head_attention(input(), input(), w, 1, s, 0);
}

}  // namespace

TEST_CASE("sink logits: the softmax gives the sink its share and the keys the rest") {
  Blocks blocks;
  const Matrix out = run(hand_attention(k_ln2), &blocks);
  REQUIRE(blocks.info.sink_logit.has_value());
  CHECK(*blocks.info.sink_logit == k_ln2);
  Matrix p(2, 2);
  p << 1.0f / 3, 0, 0.25f, 0.25f;
  CLOSE(blocks.probs, p, 1e-6f);
  CHECK(blocks.sink[0] == doctest::Approx(2.0 / 3).epsilon(1e-6));
  CHECK(blocks.sink[1] == doctest::Approx(0.5).epsilon(1e-6));
  // out = P·V with V = x: row 0 = x₀ / 3, row 1 = (x₀ + x₁) / 4; the sink adds nothing.
  Matrix expected(2, 2);
  expected << 1.0f / 3, 0, 0.25f, 0.5f;
  CLOSE(out, expected, 1e-6f);
  // Row blocks of one row give the same.
  Blocks one;
  CLOSE(run(hand_attention(k_ln2), &one, 1), expected, 0.0f);
  CHECK(one.sink == blocks.sink);

  // A sink far above the scores takes nearly everything (max-shifted, no overflow); one far below
  // leaves the plain softmax.
  Blocks high, low;
  (void)run(hand_attention(200.0f), &high);
  CHECK(high.sink[1] == 1.0f);
  CHECK(high.probs(1, 0) == doctest::Approx(std::exp(-200.0)).epsilon(1e-3));
  (void)run(hand_attention(-200.0f), &low);
  CHECK(low.sink[1] == 0.0f);
  CHECK(low.probs(1, 0) == 0.5f);

  // A NaN sink logit makes every weight NaN, as in PyTorch.
  Blocks nan;
  (void)run(hand_attention(std::nanf("")), &nan);
  CHECK(std::isnan(nan.probs(1, 0)));
  CHECK(std::isnan(nan.sink[1]));
}

TEST_CASE("sink logits: a fully masked row gives the sink everything, no key anything") {
  Matrix q = Matrix::Zero(1, 2), k = Matrix::Identity(2, 2), v = Matrix::Identity(2, 2);
  Mask mask;
  mask.n_pad_keys = 2;  // both keys padding
  Matrix out(1, 2);
  float sink = -1.0f;
  Matrix probs;
  scaled_dot_product_attention(
      out, q, k, v, mask, 1.0f, 4,
      [&](int, int, ConstMatrixRef, ConstMatrixRef p, const float* s) {
        probs = p;
        sink = s[0];
      },
      0.0f, k_ln2);
  CHECK(probs.isZero(0.0f));
  CHECK(sink == 1.0f);
  CHECK(out.isZero(0.0f));
}

TEST_CASE("sink logits: check counts the sink's weight in and recomputes it from the scores") {
  CheckCollector check;
  (void)run(hand_attention(k_ln2), &check);
  CHECK(check.summary() == "check: 1 map, no problems");

  // A sink weight the scores do not give, or keys' weights that leave out the sink's share, is a
  // bad sum.
  struct Tamper : AttentionSink {
    AttentionSink* next;
    float sink_delta, prob_delta;
    Tamper(AttentionSink* n, float s, float p) : next(n), sink_delta(s), prob_delta(p) {}
    void begin_map(const MapInfo& i) override { next->begin_map(i); }
    void on_block(const AttentionBlock& b) override {
      std::vector<float> sink(b.sink_probs, b.sink_probs + (b.row_end - b.row_begin));
      Matrix p = b.probs;
      sink[0] += sink_delta;
      p(0, 0) += prob_delta;
      next->on_block(AttentionBlock(*b.info, b.row_begin, b.row_end, b.scores, p, sink.data()));
    }
    void end_map(const MapInfo& i) override { next->end_map(i); }
  };
  for (const auto& [sink_delta, prob_delta] : {std::pair{0.01f, -0.01f}, std::pair{0.0f, 0.01f}}) {
    CheckCollector tampered;
    Tamper t(&tampered, sink_delta, prob_delta);
    (void)run(hand_attention(k_ln2), &t);
    REQUIRE(tampered.findings().size() == 1);
    const Finding& f = tampered.findings()[0];
    CHECK(f.problem == Problem::bad_sum);
    CHECK(f.rows == std::vector<int>{0});
    CHECK(f.worst == doctest::Approx(0.01).epsilon(1e-3));
    CHECK_MESSAGE(contains(f.message(), "the keys' weights and the sink's do not sum to 1"),
                  f.message());
  }
}

TEST_CASE("sink logits: stats count the sink as one more outcome of each row") {
  StatsOptions o;
  StatsCollector stats(o);
  (void)run(hand_attention(k_ln2), &stats);
  REQUIRE(stats.heads().size() == 1);
  const HeadStats& h = stats.heads()[0];
  // Row 0 has one key but a choice (the key or the sink): H = −(1/3 ln 1/3 + 2/3 ln 2/3); row 1:
  // H = −(2 · 1/4 ln 1/4 + 1/2 ln 1/2) = 1.5 ln 2.
  const double h0 = std::log(3.0) - 2.0 / 3 * std::log(2.0), h1 = 1.5 * std::log(2.0);
  CHECK(h.single_key_rows == 0);
  CHECK(h.scaled.entropy.count == 2);
  CHECK(h.scaled.entropy.mean() == doctest::Approx((h0 + h1) / 2).epsilon(1e-6));
  // The largest outcome is the sink's (2/3, 1/2); key 0's weight is 1/3, then 1/4.
  CHECK(h.scaled.max_weight.mean() == doctest::Approx((2.0 / 3 + 0.5) / 2).epsilon(1e-6));
  CHECK(h.scaled.first_key.mean() == doctest::Approx((1.0 / 3 + 0.25) / 2).epsilon(1e-6));
  // Unscaled, q·k = 0 still, and σ is no q·k product: the same distribution.
  CHECK(h.unscaled.entropy.mean() == doctest::Approx((h0 + h1) / 2).epsilon(1e-6));
  // The sink's own share, per row: 2/3 and 1/2; the report says what the figures count.
  CHECK(h.sink_logit_weight.count == 2);
  CHECK(h.sink_logit_weight.mean() == doctest::Approx((2.0 / 3 + 0.5) / 2).epsilon(1e-6));
  CHECK(find_stats_metric("sink_logit", "--sort").value(h) == h.sink_logit_weight.mean());
  StatsReportOptions report;
  report.precision = 4;
  const std::string text = render_stats(stats.heads(), stats.options(), report);
  CHECK_MESSAGE(contains(text,
                         "learned sink logits: each row's sink weight (which no key gets) "
                         "counts as one more outcome in max w, H and sat; its mean is 0.5833"),
                text);
}

TEST_CASE("sink logits: rollout keeps the sink's share out of the rows") {
  RolloutOptions o;
  o.residual = 0.5f;
  Matrix last;
  RolloutCollector rollout(o, [&](const RolloutMap& m) { last = *m.values; });
  (void)run(hand_attention(k_ln2), &rollout);
  // Â = A / 2 + I / 2, not renormalised: row 0 = [1/6 + 1/2, 0], row 1 = [1/8, 1/8 + 1/2].
  Matrix expected(2, 2);
  expected << 1.0f / 6 + 0.5f, 0, 0.125f, 0.625f;
  CLOSE(last, expected, 1e-6f);
}

TEST_CASE("sink logits: a max over heads is renormalised; check holds kept-out rows to <= 1") {
  RolloutOptions o;
  o.residual = 0.5f;
  o.combine = HeadCombine::max;
  Matrix last;
  RolloutCollector rollout(o, [&](const RolloutMap& m) { last = *m.values; });
  (void)run(hand_attention(k_ln2), &rollout);
  // One head: max = A itself, then Â renormalised: row 1 = [1/8, 5/8] / (3/4) = [1/6, 5/6].
  CHECK(last(1, 0) == doctest::Approx(1.0 / 6));
  CHECK(last(1, 1) == doctest::Approx(5.0 / 6));
  MapInfo info;
  info.sink_logit = 0.0f;
  CHECK(!keeps_sink_out(info, o));
  o.combine = HeadCombine::mean;
  CHECK(keeps_sink_out(info, o));

  // A derived map whose rows keep a sink's share out may sum below 1, never above.
  MapInfo derived;
  derived.id = HeadId{"rollout", 0, Site::self, 0};
  derived.n_heads = 1;
  derived.n_query = derived.n_key = 2;
  derived.kind = "rollout";
  derived.rows_below_one = true;
  for (const float second : {0.5f, 0.9f}) {
    Matrix rows(2, 2);
    rows << 0.75f, 0, 0.25f, second;
    CheckCollector check;
    check.begin_map(derived);
    check.on_block(AttentionBlock(derived, 0, 2, rows, rows));
    check.end_map(derived);
    CHECK(check.findings().size() == (second > 0.75f ? 1 : 0));
  }
}

TEST_CASE("sink logits: a sink logit of −inf is no sink; a NaN one makes the rows NaN") {
  Blocks none;
  (void)run(hand_attention(-std::numeric_limits<float>::infinity()), &none);
  CHECK(!none.info.sink_logit);
  CHECK(none.probs(1, 0) == 0.5f);
}

TEST_CASE("sink logits: each head its own, and --save records one per head (null: none)") {
  // Two heads of width 1 over the hand input, sinks [ln 2, −inf]: head 0 as above, head 1 a plain
  // softmax of zero scores (row 1: 1/2, 1/2).
  AttentionWeights w = hand_attention(k_ln2);
  w.sink_logits = RowVector(2);
  w.sink_logits << k_ln2, -std::numeric_limits<float>::infinity();
  struct PerHead : AttentionSink {
    std::vector<std::optional<float>> sinks;
    std::vector<float> row1_sums;
    void begin_map(const MapInfo& i) override { sinks.push_back(i.sink_logit); }
    void on_block(const AttentionBlock& b) override {
      if (b.row_end > 1) row1_sums.push_back(b.probs.row(1 - b.row_begin).sum());
    }
  } heads;
  TempDir dir;
  SaveSink save(dir / "maps.safetensors", SaveOptions{});
  struct Both : AttentionSink {
    AttentionSink *a, *b;
    Both(AttentionSink* x, AttentionSink* y) : a(x), b(y) {}
    void begin_map(const MapInfo& i) override { a->begin_map(i), b->begin_map(i); }
    void on_block(const AttentionBlock& k) override { a->on_block(k), b->on_block(k); }
    void end_map(const MapInfo& i) override { a->end_map(i), b->end_map(i); }
  } both(&heads, &save);
  AttentionSetup s;
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  s.mask = mask;
  s.sink = &both;
  (void)multi_head_attention(input(), input(), w, 2, s, 0);
  save.finish();
  REQUIRE(heads.sinks.size() == 2);
  CHECK(heads.sinks[0] == k_ln2);
  CHECK(!heads.sinks[1]);  // not head 0's carried over
  CHECK(heads.row1_sums[0] == doctest::Approx(0.5));
  CHECK(heads.row1_sums[1] == doctest::Approx(1.0));
  const auto saved = SafetensorsFile::open(dir / "maps.safetensors");
  const auto sinks = nlohmann::json::parse(saved.metadata().at("layer0.self.sink_logits"));
  REQUIRE(sinks.size() == 2);
  CHECK(sinks[0].get<double>() == doctest::Approx(std::log(2.0)));
  CHECK(sinks[1].is_null());
}

TEST_CASE("sink logits: explain includes σ in the softmax it spells out") {
  HeadTracer tracer(HeadId{"", 0, Site::self, 0});
  struct Fan : AttentionSink {
    HeadTracer* t;
    explicit Fan(HeadTracer* tr) : t(tr) {}
    void begin_map(const MapInfo& i) override { t->begin_map(i); }
    void queries_and_keys(const MapInfo& i, ConstMatrixRef q, ConstMatrixRef k) override {
      t->queries_and_keys(i, q, k);
    }
    void head_values(const MapInfo& i, ConstMatrixRef v) override { t->head_values(i, v); }
    void on_block(const AttentionBlock& b) override { t->on_block(b); }
    void head_output(const MapInfo& i, ConstMatrixRef o) override { t->head_output(i, o); }
    void attention_output(const MapInfo& i, ConstMatrixRef a, ConstMatrixRef b, ConstMatrixRef c,
                          ConstMatrixRef d) override {
      t->attention_output(i, a, b, c, d);
    }
  } fan(&tracer);
  (void)run(hand_attention(k_ln2), &fan);
  ExplainOptions o;
  o.precision = 4;
  o.cell = std::pair{1, 0};
  const std::string text = render_explain(tracer.trace(), o);
  CHECK_MESSAGE(contains(text, "with this head's sink logit σ = 0.693147"), text);
  CHECK_MESSAGE(contains(text, "the sink's weights: 0.6667, 0.5000"), text);
  // exp(0 − ln 2) / (1 + 2 · 1/2) = 1/4, the sink's term counted in the sum.
  CHECK_MESSAGE(contains(text, "exp(0 − 0.693147) / 2 = 0.25"), text);
  o.format = TableFormat::json;
  const auto j = nlohmann::json::parse(render_explain(tracer.trace(), o));
  REQUIRE(j["sink"].size() == 2);  // one weight per query row
  CHECK(j["sink"][0].get<double>() == doctest::Approx(2.0 / 3));
  CHECK(j["sink"][1].get<double>() == doctest::Approx(0.5));
  CHECK(j["sink_logit"].get<double>() == doctest::Approx(std::log(2.0)));
}

TEST_CASE("sink logits: a layout's `sinks` role binds one per head, its shape checked") {
  TempDir dir;
  std::vector<float> eye = {1, 0, 0, 1}, sinks = {k_ln2, 0.0f}, three = {0, 0, 0};
  const auto write = [&](const std::vector<float>& s) {
    write_safetensors(dir / "m.safetensors",
                      {{"q", {2, 2}, eye.data()},
                       {"k", {2, 2}, eye.data()},
                       {"v", {2, 2}, eye.data()},
                       {"s", {int64_t(s.size())}, s.data()}},
                      {});
    std::ofstream(dir / "map.json") << R"({"arch": "decoder", "norm_first": true,
        "roles": {"decoder.self.q.weight": "q", "decoder.self.k.weight": "k",
        "decoder.self.v.weight": "v", "decoder.self.sinks": "s"}})";
  };
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  o.n_heads = 2;
  write(sinks);
  const Model m = load_model(dir / "m.safetensors", o);
  std::optional<LayerWeights> held;
  CHECK(m.weights.decoder.layer(0, held).self_attn.sink_logits == RowVector::Map(sinks.data(), 2));
  write(three);
  const auto wrong = error_of([&] { (void)load_model(dir / "m.safetensors", o); });
  CHECK_MESSAGE(contains(wrong, "tensor 's' has shape [3], expected [2]"), wrong);
}
