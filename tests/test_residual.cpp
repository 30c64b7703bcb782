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
