// attnviz explain: every matrix of one head's computation equal to a NumPy forward pass of the
// planted model (tests/fixtures/planted/make_planted.py, explain_reference), the cell's terms
// summing to its score and its softmax to the model's weight, and the steps printed in order.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "json_matrix.hpp"
#include "run_cli.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::worst;

TEST_CASE("explain: each step's numbers equal NumPy's forward pass of the planted model") {
  std::ifstream in("tests/fixtures/planted/reference.json");
  REQUIRE(in);
  const auto refs = nlohmann::json::parse(in).at("explain");
  REQUIRE(refs.size() == 2);
  for (const auto& ref : refs) {
    CAPTURE(ref.at("layer").get<int>());
    std::string ids;
    const auto id_list = ref.at("ids");
    for (const auto& id : id_list) ids += std::to_string(id.get<int>()) + " ";
    const auto r = run_attnviz("explain -m tests/fixtures/planted/planted-heads --ids '" + ids +
                               "' --layer " + std::to_string(ref.at("layer").get<int>()) +
                               " --head 0 --cell 7,3 --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto got = nlohmann::json::parse(r.out);
    CHECK(got.at("d_k") == 48);
    CHECK(got.at("heads") == 4);
    CHECK(got.at("scale").get<double>() == doctest::Approx(1 / std::sqrt(48.0)));
    // Magnitudes: x is a LayerNorm output (~1), q·k reaches 277, outputs ~10: tolerances scale with
    // them.
    const std::vector<std::pair<const char*, double>> steps = {
        {"x", 1e-5},     {"q", 1e-4},      {"k", 1e-4},      {"v", 1e-4},  {"scores", 1e-4},
        {"probs", 2e-6}, {"output", 1e-4}, {"merged", 1e-4}, {"out", 1e-3}};
    for (const auto& [name, tolerance] : steps) {
      CAPTURE(name);
      CHECK(worst(got.at(name), ref.at(name)) < tolerance);
    }
    const auto cell = got.at("cell");
    double sum = 0;
    const auto terms = cell.at("terms");
    REQUIRE(terms.size() == 48);
    for (const auto& t : terms) sum += t.get<double>();
    CHECK(sum == doctest::Approx(cell.at("dot").get<double>()));
    CHECK(cell.at("scaled").get<double>() ==
          doctest::Approx(ref.at("scores")[7][3].get<double>()).epsilon(1e-5));
    CHECK(cell.at("weight").get<double>() ==
          doctest::Approx(ref.at("probs")[7][3].get<double>()).epsilon(1e-5));
    CHECK(cell.at("model_weight").get<double>() ==
          doctest::Approx(cell.at("weight").get<double>()).epsilon(1e-5));
  }
}

TEST_CASE(
    "explain: the text steps in order, a masked cell, and each refusal with its own message") {
  const std::string m = "explain -m tests/fixtures/planted/planted-heads --ids '1 2 3 1 2 3'";
  const auto text = run_attnviz(m + " --layer 1 --head 0 --cell 2,4 --rows 3 --cols 3");
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  size_t at = 0;
  for (const char* step :
       {"1. X:", "2. Projections and the head split", "3. Scores: Q_0·K_0ᵀ",
        "4. Scale: × 0.144338 = 1/√48", "5. Mask (causal): masked_fill", "6. Softmax, row by row",
        "7. Output of head 0", "8. Merge", "Cell (2, 4)",
        "key 4 is masked for query 2: its score is −inf and its weight 0"}) {
    CAPTURE(step);
    const size_t found = text.out.find(step, at);
    REQUIRE(found != std::string::npos);
    at = found;
  }
  const auto markdown = run_attnviz(m + " --head 1 --format markdown");
  REQUIRE_MESSAGE(markdown.exit_code == 0, markdown.err);
  CHECK(contains(markdown.out, "### 6. Softmax, row by row"));
  CHECK(contains(markdown.out, "| P "));
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {m, "explain follows one head: give --head H"},
           {m + " --head 0 --cell 9,0", "--cell 9,0: the map has queries 0 to 5 and keys 0 to 5"},
           {m + " --head 0 --cell 3", "--cell '3': write the query and key as I,J"},
           {m + " --head 0 --format csv", "explain --format: text, markdown or json"},
           {m + " --head 7", "--head 7"}}) {
    const auto r = run_attnviz(c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE(
    "explain: an encoder-decoder's stack by --stack, Gemma 2's soft-cap and grouped K/V heads are "
    "steps of their own") {
  const std::string ed =
      "explain -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt "
      "--head 1 --site self";
  const auto both = run_attnviz(ed);
  CHECK(both.exit_code == 2);
  CHECK(contains(both.err,
                 "selects 2 (encoder.layer0.self, decoder.layer0.self): choose with --site "
                 "self|cross and --stack"));
  const auto encoder = run_attnviz(ed + " --stack encoder --rows 2 --cols 2");
  REQUIRE_MESSAGE(encoder.exit_code == 0, encoder.err);
  CHECK(contains(encoder.out, "transformer · encoder · layer 0 · self · head 1"));
  CHECK(contains(encoder.out, "Norm(x + out) (post-norm)"));
  std::ifstream ids_file("tests/fixtures/torch/hf_gemma2/ids.txt");
  std::string ids((std::istreambuf_iterator<char>(ids_file)), std::istreambuf_iterator<char>());
  const std::string g =
      "explain -m tests/fixtures/torch/hf_gemma2 --ids '" + ids + "' --layer 2 --head 3 --cell 5,3";
  const auto json = run_attnviz(g + " --format json");
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j.at("softcap").get<double>() > 0);
  // The cell's arithmetic goes through the cap and lands on the model's own score.
  CHECK(j.at("cell").at("scaled").get<double>() ==
        doctest::Approx(j.at("cell").at("model_score").get<double>()).epsilon(1e-5));
  const auto text = run_attnviz(g + " --rows 2 --cols 2");
  REQUIRE(text.exit_code == 0);
  CHECK(contains(text.out, "4b. Soft-cap: s = "));
  CHECK(contains(text.out,
                 "K and V have fewer heads (grouped-query attention): head 3 reads their head 1"));
  CHECK(contains(text.out, "rotated by position (RoPE"));
  CHECK(contains(text.out, "x + Norm(out)"));
}

TEST_CASE(
    "explain: a long dot product shows its largest terms in text, indented, and every term in "
    "Markdown") {
  // Layer 1 head 0 of the planted model reads one dimension (12) of its 48 for this cell: q = k
  // = 16.647.
  const std::string args =
      "explain -m tests/fixtures/planted/planted-heads --probe repeat:6 --layer 1 --head 0 --cell "
      "8,3";
  auto r = run_attnviz(args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string cell = r.out.substr(r.out.find("Cell (8, 3)"));
  CHECK(contains(cell, "\n   12  16.64717  16.64717  277.12818\n"));
  CHECK(contains(cell, "   (48 terms: the 16 largest |products| shown; the sum takes all)\n"));
  CHECK(contains(cell, "= 277.128"));       // the sum over all 48
  CHECK_FALSE(contains(cell, "\n   47 "));  // a zero term past the largest 16
  r = run_attnviz(args + " --format markdown");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "| 47 "));
  CHECK_FALSE(contains(r.out, "largest |products|"));
}

TEST_CASE(
    "explain: the scale step names what set the scale (the flag, the config key, or 1/sqrt(d_k))") {
  // hf_gemma2's config.json: query_pre_attn_scalar 24, head_dim 16, so the scale is 1/√24, not
  // 1/√16.
  const std::string g =
      "explain -m tests/fixtures/torch/hf_gemma2 --ids '33 42 33 21' --layer 0 --head 0 --rows 2 "
      "--cols 2";
  auto r = run_attnviz(g);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out,
                         "4. Scale: × 0.204124 (set by tests/fixtures/torch/hf_gemma2/config.json: "
                         "query_pre_attn_scalar = 24, as 1/√24)"),
                r.out);
  r = run_attnviz(g + " --qk-scale 0.5");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "4. Scale: × 0.5 (set by --qk-scale 0.5)"), r.out);
  // The planted model sets nothing: 1/√48.
  r = run_attnviz(
      "explain -m tests/fixtures/planted/planted-heads --probe repeat:3 --layer 0 --head 0 --rows "
      "2 --cols 2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "4. Scale: × 0.144338 = 1/√48"), r.out);
}
