// attnviz diff: the figures by hand on two small maps, and on the planted model (a token changed)
// against NumPy's figures from their definitions (tests/fixtures/planted/make_planted.py).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/analysis/map_diff.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

TEST_CASE("diff: by hand, two rows of two keys, a zero row and a NaN") {
  // row 0: p = [1, 0], q = [0.5, 0.5]: m = [0.75, 0.25]; JSD = ½·log2(1/0.75) + ½·(½·log2(0.5/0.75)
  // + ½·log2(0.5/0.25)) row 1: identical [0.5, 0.5]: JSD 0.
  const float a[] = {1, 0, 0.5f, 0.5f}, b[] = {0.5f, 0.5f, 0.5f, 0.5f};
  const HeadDiff d = diff_head(a, b, 2, 2);
  const double row0 =
      0.5 * std::log2(1 / 0.75) + 0.5 * (0.5 * std::log2(0.5 / 0.75) + 0.5 * std::log2(2.0));
  CHECK(d.jsd == doctest::Approx(row0 / 2));
  CHECK(d.max_abs == doctest::Approx(0.5));
  CHECK(d.mean_abs == doctest::Approx(1.0 / 4));
  CHECK(d.entropy_a == doctest::Approx(std::log(2.0) / 2));  // H([1, 0]) = 0, H([½, ½]) = ln 2
  CHECK(d.entropy_b == doctest::Approx(std::log(2.0)));
  CHECK(d.rows_compared == 2);
  const float z[] = {0, 0, 0.5f, 0.5f};  // a fully masked row in one map only: counted apart
  const HeadDiff one = diff_head(z, b, 2, 2);
  CHECK(one.rows_compared == 1);
  CHECK(one.rows_one_sided == 1);
  CHECK(one.jsd == doctest::Approx(0.0));
  const float n[] = {NAN, 0, 0.5f, 0.5f};
  CHECK(std::isnan(diff_head(n, b, 2, 2).jsd));
  CHECK(std::isnan(diff_head(n, b, 2, 2).max_abs));
}

namespace {

nlohmann::json planted_diff_reference() {
  std::ifstream in("tests/fixtures/planted/reference.json");
  REQUIRE(in);
  return nlohmann::json::parse(in).at("diff");
}

std::string ids_of(const nlohmann::json& ref, const char* key) {
  std::string ids;
  const auto list = ref.at(key);
  for (const auto& id : list) ids += std::to_string(id.get<int>()) + " ";
  return ids;
}

// `diff --format json`'s heads equal the NumPy figures of every head, ranked by JSD.
void check_planted_diff(const nlohmann::json& got, const nlohmann::json& ref) {
  const auto heads = got.at("heads");
  REQUIRE(heads.size() == 8);
  double previous = 2.0;
  for (const auto& h : heads) {
    const int layer = h.at("map") == "layer0.self" ? 0 : 1;
    const auto& want = ref.at("heads")[static_cast<size_t>(layer)][h.at("head").get<size_t>()];
    CAPTURE(layer);
    CAPTURE(h.at("head").get<int>());
    for (const char* key : {"max_abs", "mean_abs", "jsd", "entropy_a", "entropy_b"}) {
      CAPTURE(key);
      CHECK(h.at(key).get<double>() == doctest::Approx(want.at(key).get<double>()).epsilon(1e-4));
    }
    CHECK(h.at("jsd").get<double>() <= previous);  // ranked by JSD, largest first
    previous = h.at("jsd").get<double>();
  }
  CHECK(contains(got.at("notes")[0].get<std::string>(),
                 "the inputs differ at 1 of 24 positions (first: 5 "));
}

}  // namespace

TEST_CASE("diff: a token changed in the planted model gives NumPy's figures for every head") {
  const auto ref = planted_diff_reference();
  attnviz::test::TempDir dir;
  const auto save = [&](const char* key, const std::string& file) {
    const auto r = run_attnviz(
        "run -m tests/fixtures/planted/planted-heads --no-heatmap --table none --ids '" +
        ids_of(ref, key) + "' --save " + (dir / file).string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  };
  save("a_ids", "a.safetensors");
  save("b_ids", "b.safetensors");
  const auto r = run_attnviz("diff " + (dir / "a.safetensors").string() + " " +
                             (dir / "b.safetensors").string() + " --format json --png " +
                             (dir / "figs").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  check_planted_diff(nlohmann::json::parse(r.out), ref);
  CHECK(std::filesystem::exists(dir / "figs" / "diff.jsd.png"));
  CHECK(std::filesystem::exists(dir / "figs" / "layer1.self.head0.diff.png"));
}

TEST_CASE("diff: two runs given inline give NumPy's figures, and leave no temp files behind") {
  const auto ref = planted_diff_reference();
  attnviz::test::TempDir tmp;
  const std::string env = "TMPDIR='" + tmp.path().string() + "'";
  const auto r =
      run_attnviz("diff -m tests/fixtures/planted/planted-heads --ids '" + ids_of(ref, "a_ids") +
                      "' --b-ids '" + ids_of(ref, "b_ids") + "' --format json",
                  "", env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto got = nlohmann::json::parse(r.out);
  check_planted_diff(got, ref);
  CHECK(contains(got.at("title").get<std::string>(), "A planted-heads ids "));
  CHECK(std::filesystem::is_empty(tmp.path()));
  // --head selects in both runs; the seed of a probe alone can differ.
  const auto one = run_attnviz(
      "diff -m tests/fixtures/planted/planted-heads --probe repeat:6 --b-seed 5 --head 0 --layer 1 "
      "--format json",
      "", env);
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const auto heads = nlohmann::json::parse(one.out).at("heads");
  REQUIRE(heads.size() == 1);
  CHECK(heads[0].at("head") == 0);
  CHECK(std::filesystem::is_empty(tmp.path()));
}

TEST_CASE("diff: inline and file modes refuse what does not fit them, each with its own message") {
  const std::string m = "diff -m tests/fixtures/planted/planted-heads --ids '0 1 2'";
  const auto same = run_attnviz(m);
  CHECK(same.exit_code == 2);
  CHECK(contains(same.err, "B would be the same run as A; give what differs in B"));
  const auto lengths = run_attnviz(m + " --b-ids '0 1'");
  CHECK(lengths.exit_code == 1);
  CHECK(contains(
      lengths.err,
      "maps compare only at the same [heads, queries, keys] (inline: inputs of the same length"));
  CHECK(lengths.out.empty());
  const auto seed = run_attnviz(m + " --b-seed 3");
  CHECK(seed.exit_code == 2);
  CHECK(contains(seed.err, "--b-seed: A's input is no --probe"));
  const auto both = run_attnviz(
      "diff a.safetensors b.safetensors -m tests/fixtures/planted/planted-heads --b-ids 1");
  CHECK(both.exit_code == 2);
  CHECK(contains(both.err, "diff takes two --save files or one inline run"));
  const auto stray = run_attnviz("diff a.safetensors b.safetensors --ids '1 2'");
  CHECK(stray.exit_code == 2);
  CHECK(contains(stray.err, "--ids: diff of two --save files takes no input flags"));
  const auto one_file = run_attnviz("diff a.safetensors");
  CHECK(one_file.exit_code == 2);
  CHECK(contains(one_file.err, "diff: B is missing"));
  const auto nothing = run_attnviz("diff");
  CHECK(nothing.exit_code == 2);
  CHECK(contains(nothing.err, "give two --save files A B, or -m MODEL"));
}

TEST_CASE(
    "diff: an f16 save against the f32 save of the same run differs by half-precision rounding "
    "only") {
  attnviz::test::TempDir dir;
  const std::string m =
      "run -m tests/fixtures/planted/planted-heads --probe repeat:10 --no-heatmap --table none "
      "--save ";
  REQUIRE(run_attnviz(m + (dir / "a.safetensors").string()).exit_code == 0);
  REQUIRE(
      run_attnviz(m + (dir / "b.safetensors").string() + " --save-dtype f16 --head 2").exit_code ==
      0);
  REQUIRE(run_attnviz(m + (dir / "c.safetensors").string() + " --head 2").exit_code == 0);
  // One-head saves (head 2) compare with each other; weights in [0, 1] round to f16 within 2^-12.
  const auto r = run_attnviz("diff " + (dir / "c.safetensors").string() + " " +
                             (dir / "b.safetensors").string() + " --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto heads = nlohmann::json::parse(r.out).at("heads");
  REQUIRE(heads.size() == 2);
  for (const auto& h : heads) {
    CHECK(h.at("head") == 2);
    CHECK(h.at("max_abs").get<double>() <= std::ldexp(1.0, -12));
    CHECK(h.at("max_abs").get<double>() >
          0.0);  // the f16 file was read as f16, not as zeros or f32
  }
}

TEST_CASE("diff: files that do not compare are refused with their own message") {
  attnviz::test::TempDir dir;
  const std::string m =
      "run -m tests/fixtures/planted/planted-heads --no-heatmap --table none --save ";
  REQUIRE(run_attnviz(m + (dir / "a.safetensors").string() + " --ids '1 2 3 4'").exit_code == 0);
  REQUIRE(run_attnviz(m + (dir / "b.safetensors").string() + " --ids '1 2 3'").exit_code == 0);
  REQUIRE(
      run_attnviz(m + (dir / "h.safetensors").string() + " --ids '1 2 3 4' --layer 1").exit_code ==
      0);
  const auto shapes = run_attnviz("diff " + (dir / "a.safetensors").string() + " " +
                                  (dir / "b.safetensors").string());
  CHECK(shapes.exit_code == 1);
  CHECK(contains(shapes.err, "layer0.self.probs is [4, 4, 4] in A and [4, 3, 3] in B"));
  const auto one = run_attnviz("diff " + (dir / "a.safetensors").string() + " " +
                               (dir / "h.safetensors").string());
  CHECK(one.exit_code == 0);
  CHECK(contains(one.err, "layer0.self: only in A"));
  const auto sort = run_attnviz("diff " + (dir / "a.safetensors").string() + " " +
                                (dir / "a.safetensors").string() + " --sort kl");
  CHECK(sort.exit_code == 2);
  CHECK(contains(sort.err, "--sort kl: unknown figure"));
  const auto missing = run_attnviz("diff " + (dir / "a.safetensors").string() + " " +
                                   (dir / "nope.safetensors").string());
  CHECK(missing.exit_code == 1);
  CHECK(missing.out.empty());
}

TEST_CASE(
    "diff: inline titles cut text at whole characters, B that changes nothing is refused, "
    "--b-probe keeps the seed") {
  attnviz::test::TempDir dir;
  REQUIRE(run_attnviz("init -o " + (dir / "llama").string() +
                      " --arch llama --d-model 32 --heads 4 --layers 2 --seed 1")
              .exit_code == 0);
  const std::string m = "diff -m " + (dir / "llama").string();
  const auto cyrillic = run_attnviz(m +
                                    " --text 'Здравствуйте, мир и все люди' --b-text "
                                    "'Здравствуйте, мир и всё люди' --format json");
  REQUIRE_MESSAGE(cyrillic.exit_code == 0, cyrillic.err);
  // Each title from 12 bytes before the first difference (е / ё at byte 40), at a whole character.
  const std::string title = nlohmann::json::parse(cyrillic.out).at("title").get<std::string>();
  CHECK_MESSAGE(contains(title, "A llama \"…ир и все люди\""), title);
  CHECK_MESSAGE(contains(title, "B \"…ир и всё люди\""), title);
  const auto same = run_attnviz(m + " --probe repeat:4 --seed 3 --b-seed 3");
  CHECK(same.exit_code == 2);
  CHECK(contains(same.err, "the --b-… flags give B the same model and input as A"));
  const auto probe =
      run_attnviz(m + " --probe repeat:4 --seed 3 --b-probe duplicate:4 --format json");
  REQUIRE_MESSAGE(probe.exit_code == 0, probe.err);
  CHECK(contains(nlohmann::json::parse(probe.out).at("title").get<std::string>(),
                 "B probe duplicate:4 seed 3"));
}
