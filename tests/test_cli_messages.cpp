// The command line's own messages: CLI11 errors in attnviz's words with a did-you-mean, selections
// checked against the model before anything runs, flags that would mislead refused, JSON fields.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/cli/parse_errors.hpp"
#include "attnviz/render/scale_note.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {
const std::string k_mha = "run -m samples/mha -t samples/english.txt ";
}  // namespace

TEST_CASE("cli messages: edit distance by hand, and suggestions only within 2 edits") {
  CHECK(edit_distance("kitten", "sitting") == 3);     // k→s, e→i, +g
  CHECK(edit_distance("--casual", "--causal") == 2);  // s→u, u→s
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(closest_name("--casual", {"--model", "--causal", "--pad"}) == "--causal");
  CHECK(closest_name("--heaad", {"--heads", "--head"}) == "--head");  // 1 edit beats 2
  CHECK(closest_name("--bogus", {"--model", "--causal"}).empty());
  CHECK(closest_name("-x", {"-h", "-t"}).empty());  // one edit, but all of its one letter
  CHECK(closest_name("--lyer", {"--layer"}) == "--layer");
}

TEST_CASE("cli messages: an unknown option gets the prefix, a did-you-mean and exit 2") {
  auto r = run_attnviz(k_mha + "--casual");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "attnviz: error: unknown option --casual; did you mean --causal?\n"
        "run 'attnviz run --help' for the options\n");
  r = run_attnviz("stats -m samples/mha -t samples/english.txt --sturation=0.9");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("attnviz: error: unknown option --sturation; did you mean --saturation?\n",
                    0) == 0);
  r = run_attnviz(k_mha + "--quux");  // near no option (--bogus is now two edits from --bos)
  CHECK(r.err.rfind("attnviz: error: unknown option --quux\n", 0) == 0);
  r = run_attnviz("rn -m samples/mha");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("attnviz: error: unknown command 'rn'; did you mean run?\n", 0) == 0);
}

TEST_CASE("cli messages: every CLI11 error is an attnviz error, --help and --version exit 0") {
  for (const std::string args : {"run -t samples/english.txt", "run -m samples/mha --pad x", "",
                                 "run -m samples/mha --table bogus"}) {
    CAPTURE(args);
    const auto r = run_attnviz(args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.rfind("attnviz: error: ", 0) == 0, r.err);
    CHECK(contains(r.err, "--help' for the options\n"));
  }
  auto r = run_attnviz("--version");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "attnviz 0.1.0\n");
  r = run_attnviz("run --help");
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "--causal"));
  CHECK(r.err.empty());
}

TEST_CASE("cli messages: --head, --layer and --site outside the model name what exists") {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {k_mha + "--head 7", "attnviz: error: --head 7: the model has 4 heads (0\u20133)\n"},
      {"stats -m samples/mha -t samples/english.txt --head 4",
       "attnviz: error: --head 4: the model has 4 heads (0\u20133)\n"},
      {"check -m samples/mha -t samples/english.txt --layer 1",
       "attnviz: error: --layer 1: the model has 1 layer (0)\n"},
      {"run -m samples/transformer -t samples/cross/target.txt --source-tokens "
       "samples/cross/source.txt --layer 2",
       "attnviz: error: --layer 2: the model has 2 layers (0\u20131)\n"},
      {k_mha + "--site cross",
       "attnviz: error: --site cross: this model has only self attention\n"},
      {"run -m samples/mha -t samples/cross/target.txt --source-tokens samples/cross/source.txt "
       "--site self",
       "attnviz: error: --site self: this model on this input has only cross attention\n"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = run_attnviz(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == c.message);
  }
}

TEST_CASE("cli messages: --cmap diverging is refused for weights, naming the alternatives") {
  const auto r = run_attnviz(k_mha + "--cmap diverging");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(contains(r.err, "a diverging map is for signed values (scores or differences)"));
  CHECK(contains(r.err, "use viridis, magma, inferno or plasma"));
  CHECK(run_attnviz(k_mha + "--cmap magma --color=never --width 80").exit_code == 0);
}

TEST_CASE("cli messages: --qk-scale none is stated in titles, the default scale is not") {
  auto r = run_attnviz(k_mha + "--head 0 --qk-scale none --color=never --width 80");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // d_k = 64 / 4 heads... samples/mha: d_qk 64 over 4 heads, so d_k = 16.
  CHECK(r.out.rfind("mha · layer 0 · self · head 0 · mask: none · q·k unscaled (not 1/√16)\n", 0) ==
        0);
  CHECK(contains(r.out, "weights (softmax) · q·k unscaled (not 1/√16)\n"));
  r = run_attnviz(k_mha + "--qk-scale 0.5 --color=never --width 80");
  CHECK(r.out.rfind("mha · layer 0 · self · mask: none · q·k × 0.5 (not 1/√16)\n", 0) == 0);
  r = run_attnviz(k_mha + "--qk-scale 0.25 --head 0 --color=never --width 80");  // = 1/√16
  CHECK(r.out.rfind("mha · layer 0 · self · head 0 · mask: none\n", 0) == 0);
}

TEST_CASE("cli messages: run --format json carries stack, layer, site, head and kind as fields") {
  const auto r = run_attnviz(
      "run -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt --format json --table both --head 2 --layer 1 --site cross");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  for (int k = 0; k < 2; ++k) {
    CHECK(j[k]["stack"] == "decoder");
    CHECK(j[k]["layer"] == 1);
    CHECK(j[k]["site"] == "cross");
    CHECK(j[k]["head"] == 2);
    CHECK(j[k]["values"].size() == 8);      // 8 target queries
    CHECK(j[k]["values"][0].size() == 10);  // × 10 source keys
  }
  CHECK(j[0]["kind"] == "scores");
  CHECK(j[1]["kind"] == "probs");
  CHECK(contains(j[1]["title"].get<std::string>(), "weights"));
}

TEST_CASE("cli messages: check --format json lists findings as fields and keeps exit 3") {
  auto r = run_attnviz("check -m samples/mha -t - --mask samples/mask_all_zeros.txt --format json",
                       "a b c d");
  CHECK(r.exit_code == 3);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["findings"].size() == 4);  // one per head: every row fully masked
  for (int h = 0; h < 4; ++h) {
    const auto& f = j["findings"][h];
    CHECK(f["stack"] == "");
    CHECK(f["layer"] == 0);
    CHECK(f["site"] == "self");
    CHECK(f["head"] == h);
    CHECK(f["test"] == "fully_masked");
    CHECK(f["rows"] == nlohmann::json::array({0, 1, 2, 3}));
    CHECK(f["value"].is_null());
    CHECK(contains(f["message"].get<std::string>(), "every key is masked"));
  }
  CHECK(j["summary"]["maps"] == 4);
  CHECK(j["summary"]["maps_with_problems"] == 4);
  CHECK(j["summary"]["problems"] == 4);
  CHECK(contains(r.err, "attnviz: check: 4 problems in 4 of 4 maps"));
  r = run_attnviz("check -m samples/mha -t samples/english.txt --causal --format json");
  CHECK(r.exit_code == 0);
  const auto ok = nlohmann::json::parse(r.out);
  CHECK(ok["findings"].empty());
  CHECK(ok["summary"]["maps"] == 4);
  CHECK(ok["summary"]["message"] == "check: 4 maps, no problems");
}

TEST_CASE("cli messages: inspect describes a lone module without layers, norms or FFN") {
  const auto r = run_attnviz("inspect samples/mha");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out,
                 "one attention module, d_model 128, 4 heads (d_k 16, d_v 16), out projection"));
  CHECK(!contains(r.out, "d_ff"));
  CHECK(!contains(r.out, "post-norm"));
  CHECK(!contains(r.out, "1 layers"));
}

TEST_CASE("cli messages: counts of one are singular") {
  attnviz::test::TempDir dir;
  auto r = run_attnviz("init -o " + (dir / "enc").string() +
                       " --arch encoder --layers 1 --heads 1 "
                       "--d-model 8");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  r = run_attnviz("inspect " + (dir / "enc").string());
  CHECK_MESSAGE(contains(r.out, ", 1 layer, d_model 8, 1 head (d_k 8, d_v 8), d_ff 32, post-norm"),
                r.out);
  r = run_attnviz("run -m samples/mha -t - --pad 2", "a");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "attnviz: error: --pad 2: there is only 1 token\n");
}

TEST_CASE("cli messages: tables and stats honour --width, or say on stderr that they cannot") {
  auto r = run_attnviz("run -m samples/mha -t - --head 0 --no-heatmap --width 20 --color=never",
                       "a b c");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // 1 label column + 2 keys × 7 = 15 fits 20; the third key goes to a second block.
  CHECK(contains(r.out, "keys 0\u20131 of 3\n"));
  CHECK(contains(r.out, "\nkey 2 of 3\n"));
  CHECK_FALSE(
      contains(r.err, "warning"));  // only the note that the sample's tokens are hash-embedded
  // Scores × 1e6 at 9 digits are 18 columns wide: with a label, 21 > 20.
  r = run_attnviz(
      "run -m samples/mha -t - --head 0 --no-heatmap --table scores --precision 9 "
      "--qk-scale 1000000 --width 20 --color=never",
      "a b");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.err, "attnviz: warning: a column of 'mha · layer 0 · self · head 0 · scores"));
  CHECK(contains(r.err, "more than --width 20: lines are wider than the terminal\n"));
  r = run_attnviz("stats -m samples/mha -t samples/english.txt --width 20");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // "layer0.self" + head + role = 24 columns before any figure.
  CHECK(contains(r.err, "attnviz: warning: the stats table needs "));
  CHECK(contains(r.err, "columns, more than --width 20\n"));
}

TEST_CASE("cli messages: the --qk-scale note of titles and figure captions") {
  CHECK(scale_note(0.25, 16).empty());                     // 1/√16: the default says nothing
  CHECK(scale_note(1.0f / std::sqrt(64.0f), 64).empty());  // as multi_head computes it, in float
  CHECK(scale_note(1.0, 16) == "q·k unscaled (not 1/√16)");
  CHECK(scale_note(0.5, 16) == "q·k × 0.5 (not 1/√16)");
}

TEST_CASE("cli messages: stats states --qk-scale in its title") {
  auto r = run_attnviz("stats -m samples/mha -t samples/english.txt --qk-scale none --width 200");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("mha · attention statistics · saturated: max weight >= 0.99 · q·k unscaled "
                    "(not 1/√16)\n",
                    0) == 0);
  r = run_attnviz("stats -m samples/mha -t samples/english.txt --width 200");
  CHECK(r.out.rfind("mha · attention statistics · saturated: max weight >= 0.99\n", 0) == 0);
}
