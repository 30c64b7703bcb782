// attnviz residual: the norms around every sublayer equal a NumPy forward pass of the planted
// (pre-norm) model; on a post-norm encoder-decoder each sublayer reads x itself and hands its
// output to the next, and the shares of a layer's updates sum to 1.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;

TEST_CASE("residual: the planted model's norms equal NumPy's pre-norm forward pass") {
  std::ifstream in("tests/fixtures/planted/reference.json");
  REQUIRE(in);
  const auto ref = nlohmann::json::parse(in).at("residual");
  std::string ids;
  const auto id_list = ref.at("ids");
  for (const auto& id : id_list) ids += std::to_string(id.get<int>()) + " ";
  const auto r = run_attnviz("residual -m tests/fixtures/planted/planted-heads --ids '" + ids +
                             "' --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto got = nlohmann::json::parse(r.out).at("sublayers");
  const auto want = ref.at("sublayers");
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k].at("layer") == want[k].at("layer"));
    CHECK(got[k].at("sublayer") == want[k].at("sublayer"));
    CHECK(got[k].at("placement") == "pre-norm");
    for (const auto& [mine, theirs] : {std::pair{"x", "x"},
                                       {"f_input", "f_input"},
                                       {"update", "update"},
                                       {"out", "out"},
                                       {"cos_x_update", "cos"}}) {
      CAPTURE(mine);
      CHECK(got[k].at(mine).get<double>() ==
            doctest::Approx(want[k].at(theirs).get<double>()).epsilon(1e-5).scale(1));
    }
  }
}

TEST_CASE("residual: post-norm sublayers read x and chain, shares of a layer sum to 1") {
  const auto r = run_attnviz(
      "residual -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto rows = nlohmann::json::parse(r.out).at("sublayers");
  REQUIRE(rows.size() == 10);  // encoder 2 × (attention, ffn), decoder 2 × (attention, cross, ffn)
  double share = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    CAPTURE(k);
    CHECK(rows[k].at("placement") == "post-norm");
    CHECK(rows[k].at("f_input").get<double>() == rows[k].at("x").get<double>());
    const bool same_stack_next =
        k + 1 < rows.size() && rows[k + 1].at("stack") == rows[k].at("stack");
    if (same_stack_next) {
      CHECK(rows[k + 1].at("x").get<double>() ==
            doctest::Approx(rows[k].at("out").get<double>()).epsilon(1e-6));
    }
    share += rows[k].at("share").get<double>();
    if (!same_stack_next || rows[k + 1].at("layer") != rows[k].at("layer")) {
      CHECK(share == doctest::Approx(1.0));
      share = 0;
    }
  }
  const auto none = run_attnviz("residual -m samples/mha -t samples/english.txt");
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "mha has no residual sublayers"));
}

TEST_CASE(
    "residual: --layer picks a layer, --head is refused, Gemma's sandwich is named, each stack's "
    "tokens are counted") {
  const auto one = run_attnviz(
      "residual -m tests/fixtures/planted/planted-heads --probe repeat:4 --layer 1 --format json");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const auto rows = nlohmann::json::parse(one.out).at("sublayers");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("layer") == 1);
  const auto head =
      run_attnviz("residual -m tests/fixtures/planted/planted-heads --probe repeat:4 --head 1");
  CHECK(head.exit_code == 2);
  CHECK(contains(head.err, "residual reports whole sublayers"));
  const auto gemma =
      run_attnviz("residual -m tests/fixtures/torch/hf_gemma2 --ids '1 2 3' --format json");
  REQUIRE_MESSAGE(gemma.exit_code == 0, gemma.err);
  CHECK(nlohmann::json::parse(gemma.out).at("sublayers")[0].at("placement") == "sandwich");
  const auto ed = run_attnviz(
      "residual -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt");
  REQUIRE(ed.exit_code == 0);
  CHECK(contains(ed.out, "(encoder 10 tokens, decoder 8 tokens)"));
}

TEST_CASE("residual: in a parallel block both sublayers read x and end at the layer's output") {
  // A nanoGPT checkpoint read through a layout file that runs its blocks as GPT-NeoX does.
  attnviz::test::TempDir dir;
  std::ofstream(dir / "tokens.txt") << "a b c d e\n";
  const auto init = run_attnviz("init -o " + dir.path().string() +
                                " --arch decoder --d-model 8 --heads 2 --layers 2 --vocab " +
                                (dir / "tokens.txt").string());
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  std::ofstream(dir / "map.json") << R"({"arch": "decoder", "norm_first": true,
    "positional": "learned", "activation": "gelu", "parallel_residual": true, "roles": {
    "embed.token": "transformer.wte.weight", "embed.position": "transformer.wpe.weight",
    "decoder.norm_self.weight": "transformer.h.{layer}.ln_1.weight",
    "decoder.norm_self.bias": "transformer.h.{layer}.ln_1.bias",
    "decoder.self.qkv.weight": "transformer.h.{layer}.attn.c_attn.weight",
    "decoder.self.qkv.bias": "transformer.h.{layer}.attn.c_attn.bias",
    "decoder.self.out.weight": "transformer.h.{layer}.attn.c_proj.weight",
    "decoder.self.out.bias": "transformer.h.{layer}.attn.c_proj.bias",
    "decoder.norm_ffn.weight": "transformer.h.{layer}.ln_2.weight",
    "decoder.norm_ffn.bias": "transformer.h.{layer}.ln_2.bias",
    "decoder.ffn.up.weight": "transformer.h.{layer}.mlp.c_fc.weight",
    "decoder.ffn.up.bias": "transformer.h.{layer}.mlp.c_fc.bias",
    "decoder.ffn.down.weight": "transformer.h.{layer}.mlp.c_proj.weight",
    "decoder.ffn.down.bias": "transformer.h.{layer}.mlp.c_proj.bias",
    "decoder.final_norm.weight": "transformer.ln_f.weight",
    "decoder.final_norm.bias": "transformer.ln_f.bias"}})";
  const std::string run = "residual -m " + dir.path().string() + " --layout-file " +
                          (dir / "map.json").string() + " --ids '1 2 3 4'";
  const auto r = run_attnviz(run + " --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto rows = nlohmann::json::parse(r.out).at("sublayers");
  REQUIRE(rows.size() == 4);
  for (size_t k = 0; k < 4; k += 2) {
    CAPTURE(k);
    CHECK(rows[k].at("placement") == "parallel");
    CHECK(rows[k + 1].at("placement") == "parallel");
    CHECK(rows[k].at("sublayer") == "attention");
    CHECK(rows[k].at("x").get<double>() == rows[k + 1].at("x").get<double>());
    CHECK(rows[k].at("out").get<double>() == rows[k + 1].at("out").get<double>());
    if (k == 2) {  // the second layer reads the first one's output
      CHECK(rows[k].at("x").get<double>() ==
            doctest::Approx(rows[0].at("out").get<double>()).epsilon(1e-6));
    }
  }
  const auto text = run_attnviz(run);
  REQUIRE(text.exit_code == 0);
  CHECK_MESSAGE(contains(text.out, "parallel: x + Attn(Norm(x)) + FFN(Norm₂(x)), both read x"),
                text.out);
}
