// Attention rollout over a ViT's patches against jacobgil/vit-explain's rollout (its vit_rollout.py
// in PyTorch on the same maps: make_vision_fixtures.py): head fusion mean, max and min, the discard
// ratio, and its division; then the overlay that draws it.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::SafetensorsFile;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {
const std::filesystem::path k_root = ATTNVIZ_SOURCE_DIR;
const std::string k_vit = "tests/fixtures/torch/hf_vit";
}  // namespace

TEST_CASE("rollout over patches equals vit-explain's, fusion by fusion") {
  std::ifstream in(k_root / k_vit / "rollout_cases.json");
  REQUIRE(in.good());
  const auto cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() >= 5);
  const auto expected = SafetensorsFile::open(k_root / k_vit / "rollout.safetensors");
  for (const auto& c : cases) {
    const std::string key = c.at("key");
    CAPTURE(key);
    TempDir tmp;
    const auto out = tmp / "out.safetensors";
    const std::string division = c.at("division") == "vit-explain" ? " --vit-explain-division" : "";
    const auto r = run_attnviz(fmt::format(
        "rollout -m {0} --pixels {0}/pixels.npy --layer 1 --combine {1} --discard-ratio {2}{3} "
        "--no-heatmap --table none --save '{4}'",
        k_vit, c.at("combine").get<std::string>(), c.at("discard_ratio").get<double>(), division,
        out.string()));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto saved = SafetensorsFile::open(out);
    REQUIRE_MESSAGE(saved.find("rollout.layer1.self.probs") != nullptr, "saved: " << out);
    const auto actual = saved.load("rollout.layer1.self.probs");
    const auto want = expected.load(key);
    REQUIRE(actual.data.size() == want.data.size());
    const auto cmp = attnviz::test::compare_close(actual.data, want.data, 1e-5f,
                                                  [](size_t i) { return std::to_string(i); });
    CHECK_MESSAGE(cmp.mismatches == 0, key << ": max diff " << cmp.worst << "\n" << cmp.first);
  }
}

TEST_CASE("rollout: --discard-ratio and --vit-explain-division refuse what they cannot mean") {
  const std::string base = "rollout -m " + k_vit + " --pixels " + k_vit + "/pixels.npy ";
  auto r = run_attnviz(base + "--discard-ratio 1.5");
  CHECK(r.exit_code == 2);
  r = run_attnviz(base + "--vit-explain-division --residual 0.3");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "whose residual is 0.5"), r.err);
}
