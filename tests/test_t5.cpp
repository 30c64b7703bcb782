// T5 and Flan-T5 beyond the PyTorch fixtures' maps (hf_t5, hf_flan_t5 and hf_flan_t5_generate in
// tests/test_pytorch_fixtures.cpp): what the records read from their folders, the logits against
// PyTorch (a tied lm_head reading h × d^−½, an untied one h), explain's bias step against the
// model's own scores, and what a T5 folder may not hold.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "edited_fixture.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "top5_fixture.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::EditedFixture;
using attnviz::test::error_of;
using attnviz::test::k_torch;
using attnviz::test::run_attnviz;

namespace {

std::vector<int64_t> fixture_ids(const std::string& fixture, const char* file) {
  return parse_ids(test::slurp(k_torch / fixture / file), file);
}

std::string load_error(const EditedFixture& f) {
  return error_of([&] { (void)load_model(f.dir.path(), {}); });
}

}  // namespace

TEST_CASE("t5: the records read T5 and Flan-T5 folders, and the logits are PyTorch's") {
  for (const std::string name : {"hf_t5", "hf_flan_t5"}) {
    CAPTURE(name);
    const bool flan = name == "hf_flan_t5";
    const Model m = load_model(k_torch / name, {});
    const Config& c = m.config;
    CHECK(c.layout == (flan ? "t5-gated" : "t5"));
    CHECK(c.positional == Positional::relative);
    CHECK(c.attn_scale == 1.0f);
    CHECK(c.relative_buckets == (flan ? 32 : 8));  // Flan's config.json is silent: T5Config's
    CHECK(c.relative_max_distance == (flan ? 128 : 16));
    CHECK(c.max_positions == 0);  // n_positions = 16 in both: a key T5 does not read
    CHECK(c.d_qk == (flan ? 48 : 32));
    CHECK(c.norm == NormKind::rms_norm);
    CHECK(c.ffn == (flan ? FeedForwardKind::gated : FeedForwardKind::plain));
    CHECK(c.activation == (flan ? Activation::gelu_tanh : Activation::relu));
    CHECK(c.tied_embeddings == !flan);
    CHECK(c.unembed_input_scale ==
          doctest::Approx(flan ? 1.0 : 1.0 / std::sqrt(32.0)).epsilon(1e-7));
    CHECK(c.decoder_start_id == 0);
    REQUIRE(m.weights.encoder.relative_bias.rows() == c.relative_buckets);
    REQUIRE(m.weights.decoder.relative_bias.cols() == 4);

    const auto src = fixture_ids(name, "source_ids.txt"), tgt = fixture_ids(name, "ids.txt");
    ForwardInputs in{embed_ids(m, tgt, std::vector<std::string>(tgt.size(), "t")),
                     embed_ids(m, src, std::vector<std::string>(src.size(), "s"), true),
                     {},
                     {}};
    in.source_mask.n_pad_keys = flan ? 0 : 2;
    const Matrix hidden = forward(m, in, {}, nullptr).hidden;
    test::check_top5(model_predictions(m, hidden, 5), name);
  }
}

TEST_CASE("t5: explain adds the bias of each offset's bucket, and lands on the model's scores") {
  const std::string base =
      "explain -m tests/fixtures/torch/hf_t5 --source-ids "
      "tests/fixtures/torch/hf_t5/source_ids.txt "
      "--source-pad 2 --ids tests/fixtures/torch/hf_t5/ids.txt --layer 1 --head 2 --site self ";
  const auto json = run_attnviz(base + "--stack encoder --cell 3,19 --format json");
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j.at("scale").get<double>() == 1.0);
  // Every allowed score is q·k + B (scale 1): the bias the explanation shows is the model's.
  const auto& qk = j.at("qk");
  const auto& bias = j.at("relative_bias");
  const auto& scores = j.at("scores");
  const auto& buckets = j.at("relative_buckets");
  REQUIRE(bias.size() == 22);
  int checked = 0;
  for (size_t i = 0; i < 22; ++i) {
    for (size_t k = 0; k < 20; ++k) {  // the last two keys are padding
      CHECK(scores[i][k].get<double>() ==
            doctest::Approx(qk[i][k].get<double>() + bias[i][k].get<double>()).epsilon(1e-4));
      ++checked;
    }
  }
  CHECK(checked == 440);
  // 8 buckets to 16, bidirectional: 4 a side, offsets 0 and 1 exact, then logarithmic, 16 and past
  // it the last; later keys from bucket 4.
  CHECK(buckets[0][0] == 0);
  CHECK(buckets[1][0] == 1);
  CHECK(buckets[0][1] == 5);
  CHECK(buckets[19][0] == 3);
  CHECK(buckets[0][19] == 7);
  const auto& cell = j.at("cell");
  CHECK(cell.at("scaled").get<double>() ==
        doctest::Approx(cell.at("model_score").get<double>()).epsilon(1e-5));
  const auto text = run_attnviz(base + "--stack decoder --rows 2 --cols 2 --cell 5,1");
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(test::contains(text.out, "one head's attention, step by step: softmax(Q·Kᵀ + B)·V"));
  CHECK(test::contains(text.out,
                       "4a. Relative position bias: + B_2(i, j) = table[bucket(j − i), 2], "
                       "the table [8 buckets, 4 heads] of this stack's layer 0, added in every "
                       "layer; a causal stack's buckets count back only"));
  CHECK(
      test::contains(text.out, "4. Scale: × 1 (set by the t5 family, which does not scale q·kᵀ)"));
  CHECK(test::contains(text.out, ", + B = "));
  CHECK(test::contains(text.out, "(bucket 4)"));  // offset −4, the decoder's first log bucket
}

TEST_CASE("t5: stats' raw q·k leaves the bias out, the scores keep it") {
  const std::string input =
      " -m tests/fixtures/torch/hf_t5 --source-ids tests/fixtures/torch/hf_t5/source_ids.txt "
      "--source-pad 2 --ids tests/fixtures/torch/hf_t5/ids.txt ";
  const auto stats = run_attnviz("stats" + input + "--format json");
  REQUIRE_MESSAGE(stats.exit_code == 0, stats.err);
  const auto logits = nlohmann::json::parse(stats.out).at("heads").at(0).at("logits");
  // explain computes var(q·k) from Q_h·K_hᵀ itself, over the same cells.
  const auto explain = run_attnviz("explain" + input +
                                   "--stack encoder --layer 0 --site self --head 0 --rows 1 "
                                   "--cols 1");
  REQUIRE_MESSAGE(explain.exit_code == 0, explain.err);
  const size_t at = explain.out.find("var(q·k) = ");
  REQUIRE(at != std::string::npos);
  const double var_qk = std::stod(explain.out.substr(at + std::string("var(q·k) = ").size()));
  CHECK(logits.at("raw_variance").get<double>() == doctest::Approx(var_qk).epsilon(1e-3));
  // The scores the softmax reads hold the bias too (scale 1: they would be equal without it).
  CHECK(std::abs(logits.at("scaled_variance").get<double>() - var_qk) > 0.1);
}

TEST_CASE("t5: positions shows the encoder's bias by distance and head") {
  const auto r = run_attnviz("positions -m tests/fixtures/torch/hf_t5 --positions 20");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(test::contains(r.out,
                       "the encoder's relative position bias for a key d positions before "
                       "the query (row d), per head: its bucket's value (8 buckets to "
                       "distance 16)"));
  CHECK(test::contains(r.out, "mean over the heads of the bias the encoder adds"));
}

TEST_CASE("t5: a folder whose settings or tables disagree with its tensors is refused") {
  EditedFixture gated("hf_t5", [](auto&) {}, {{"feed_forward_proj", "gated-gelu"}});
  CHECK(test::contains(load_error(gated),
                       "activation 'gated-gelu': expected relu, gelu, gelu_new or silu (the t5 "
                       "layout, as its tensors hold the feed-forward layers)"));
  EditedFixture is_gated("hf_t5", [](auto&) {}, {{"is_gated_act", true}});
  CHECK(load_error(is_gated) ==
        "config is_gated_act = true: a gated feed-forward layer (wi_0, wi_1), while the tensors "
        "hold wi alone is not supported");
  EditedFixture not_gated("hf_flan_t5", [](auto&) {}, {{"is_gated_act", false}});
  CHECK(load_error(not_gated) ==
        "config is_gated_act = false: a feed-forward layer without the gate wi_0, while the "
        "tensors hold wi_0 and wi_1 is not supported");
  EditedFixture agreeing("hf_flan_t5", [](auto&) {},
                         {{"is_gated_act", true}, {"dense_act_fn", "gelu_new"}});
  CHECK(load_error(agreeing) == "(no error)");  // Flan-T5's own keys, as transformers 4.23 saves
  EditedFixture reach("hf_t5", [](auto&) {}, {{"relative_attention_max_distance", 4}});
  CHECK(test::contains(load_error(reach),
                       "relative_attention_max_distance = 4: expected more "
                       "than half of relative_attention_num_buckets = 8"));
  EditedFixture width("hf_t5", [](auto&) {}, {{"d_kv", 16}});
  CHECK(test::contains(load_error(width), "d_kv = 16, but the weights have 8"));
  EditedFixture shape("hf_t5", [](auto& t) {
    t.at("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight").shape = {4, 8};
  });
  CHECK(load_error(shape) ==
        "tensor 'decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight' has shape "
        "[4, 8], expected [8, 4] (relative_attention_num_buckets, heads)");
  EditedFixture missing("hf_t5", [](auto& t) {
    t.erase("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  });
  CHECK(test::contains(load_error(missing),
                       "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"));
  EditedFixture copy("hf_t5", [](auto& t) { t.at("lm_head.weight").data[3] += 1.0f; });
  CHECK(test::contains(load_error(copy),
                       "tie_word_embeddings = true, but 'lm_head.weight' differs from the token "
                       "table 'shared.weight'"));
}
