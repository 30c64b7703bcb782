// The bundled trained model (samples/induction, trained by samples/induction/train_induction.py):
// attnviz's maps and head-detection scores against the training script's own torch forward pass
// (reference.json), and `heads` naming its previous-token and induction heads on the repeat probe.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::run_attnviz;

namespace {

const char* const k_sample = "samples/induction";

nlohmann::json reference() {
  std::ifstream in(std::string(ATTNVIZ_SOURCE_DIR) + "/samples/induction/reference.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// The reference input called `name`: the repeated text, or the probe.
nlohmann::json reference_input(const nlohmann::json& ref, const std::string& name) {
  const nlohmann::json& inputs = ref.at("inputs");
  for (const auto& input : inputs) {
    if (input.at("name") == name) return input;
  }
  FAIL("reference.json has no input named " << name);
  return {};
}

// `heads --format json` scores compared with the reference's [layer][head][pattern] for one
// measure.
void check_scores(const std::string& heads_json, const nlohmann::json& ref,
                  const nlohmann::json& want) {
  const std::vector<std::string> patterns = ref.at("patterns");
  const auto got = nlohmann::json::parse(heads_json);
  const nlohmann::json& heads = got.at("heads");
  REQUIRE(heads.size() == want.size() * want.at(0).size());  // every layer's every head
  for (const auto& h : heads) {
    const int layer = h.at("layer"), head = h.at("head");
    for (size_t p = 0; p < patterns.size(); ++p) {
      CAPTURE(layer);
      CAPTURE(head);
      CAPTURE(patterns[p]);
      const double expected =
          want.at(static_cast<size_t>(layer)).at(static_cast<size_t>(head)).at(p);
      CHECK(h.at("scores").at(patterns[p]).get<double>() ==
            doctest::Approx(expected).epsilon(2e-5));
    }
  }
}

}  // namespace

TEST_CASE(
    "trained induction: every head's map on the repeated text equals the torch forward pass") {
  const auto ref = reference();
  const auto input = reference_input(ref, "text");
  const std::string text = input.at("text");
  attnviz::test::TempDir dir;
  const auto saved = dir / "maps.safetensors";
  const auto r =
      run_attnviz(fmt::format("run -m {} --text '{}' --no-heatmap --table none --save '{}'",
                              k_sample, text, saved.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto file = attnviz::SafetensorsFile::open(saved);
  const nlohmann::json& probs = input.at("probs");  // [layer][head][query] rows up to the diagonal
  const auto n = static_cast<int64_t>(input.at("ids").size());
  for (size_t layer = 0; layer < probs.size(); ++layer) {
    const std::string name = fmt::format("layer{}.self.probs", layer);
    CAPTURE(name);
    const attnviz::Tensor got = file.load(name);
    const auto n_heads = static_cast<int64_t>(probs.at(layer).size());
    REQUIRE(got.shape == std::vector<int64_t>{n_heads, n, n});
    std::vector<float> want(got.data.size(), 0.0f);  // causal: zero above the diagonal
    for (int64_t h = 0; h < n_heads; ++h) {
      for (int64_t q = 0; q < n; ++q) {
        const nlohmann::json& row =
            probs.at(layer).at(static_cast<size_t>(h)).at(static_cast<size_t>(q));
        REQUIRE(static_cast<int64_t>(row.size()) == q + 1);
        for (int64_t k = 0; k <= q; ++k)
          want[static_cast<size_t>((h * n + q) * n + k)] = row.at(static_cast<size_t>(k));
      }
    }
    const auto c = attnviz::test::compare_close(got.data, want, 2e-6f, [n](size_t i) {
      return fmt::format("[head {}, query {}, key {}]", i / static_cast<size_t>(n * n),
                         i / static_cast<size_t>(n) % static_cast<size_t>(n),
                         i % static_cast<size_t>(n));
    });
    CHECK_MESSAGE(c.mismatches == 0, c.mismatches << " differ, max " << c.worst << "\n" << c.first);
  }
}

TEST_CASE(
    "trained induction: head-detection scores on the repeated text equal torch's, mul and abs") {
  const auto ref = reference();
  const auto input = reference_input(ref, "text");
  for (const std::string measure : {"mul", "abs"}) {
    CAPTURE(measure);
    const auto r = run_attnviz(fmt::format("heads -m {} --text '{}' --format json --measure {}",
                                           k_sample, input.at("text").get<std::string>(), measure));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    check_scores(r.out, ref, input.at("scores").at(measure));
  }
}

TEST_CASE(
    "trained induction: on the repeat probe heads names the previous-token and induction heads") {
  const auto ref = reference();
  const auto input = reference_input(ref, "probe repeat:20");
  for (const std::string pattern : {"previous-token", "induction"}) {
    CAPTURE(pattern);
    const auto r = run_attnviz(
        fmt::format("heads -m {} --probe {} --seed {} --format json --sort {}", k_sample,
                    input.at("probe").get<std::string>(), input.at("seed").get<int>(), pattern));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    // The probe's ids are the reference's (the same splitmix64 draws), so every score matches …
    check_scores(r.out, ref, input.at("scores").at("mul"));
    // … and the leader is the head the torch scores put first, ahead of the runner-up.
    const auto got = nlohmann::json::parse(r.out);
    const nlohmann::json& heads = got.at("heads");
    const nlohmann::json& leaders = ref.at("leaders").at(pattern);
    CHECK(heads.at(0).at("layer") == leaders.at(0).at("layer"));
    CHECK(heads.at(0).at("head") == leaders.at(0).at("head"));
    CHECK(heads.at(1).at("layer") == leaders.at(1).at("layer"));
    CHECK(heads.at(1).at("head") == leaders.at(1).at("head"));
    // A trained head, not a tie: it puts most of the attention it can on the pattern, far ahead of
    // the next. The share's ceiling is the rows with a key on the pattern over all rows (mul: Σ A·P
    // / Σ A): for previous-token every row but <s>'s, for induction only the second copy's N of 2N
    // + 1.
    const auto n = static_cast<double>(input.at("ids").size());
    const double ceiling = pattern == "induction" ? (n - 1) / 2 / n : (n - 1) / n;
    const double first = heads.at(0).at("scores").at(pattern),
                 second = heads.at(1).at("scores").at(pattern);
    CHECK(first > 0.5 * ceiling);
    CHECK(first > second + 0.2 * ceiling);
  }
}
