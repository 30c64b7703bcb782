// attnviz explain on tutorial attention modules at the tutorials' own shapes: with separate q/k/v
// Linears, SelfAttention(128, 64, 64) and CrossAttention(128, 64, 64) (no output projection) and
// MultiHeadAttention(512, 8 heads, 512, 512) (an out Linear); and the nanoGPT-style causal
// NaiveAttention(n_embd=4, block_size=5) with one fused `attn` Linear. Every step explain prints
// (X, Q, K, V per head, Q·Kᵀ, the scale, the masked scores, the softmax weights, P·V, the merge and
// the output) must equal what the module's own PyTorch forward computed
// (tests/fixtures/seeds/make_seed_models.py, reference.json); no expected value here comes from
// attnviz.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "json_matrix.hpp"
#include "run_cli.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using nlohmann::json;

namespace {

const json& reference() {
  static const json ref = [] {
    std::ifstream in("tests/fixtures/seeds/reference.json");
    REQUIRE(in);
    return json::parse(in);
  }();
  return ref;
}

// The case's attnviz arguments (model and inputs) as shell words; the paths hold no spaces.
std::string case_args(const json& c) {
  std::string args;
  const json words = c.at("args");
  for (const auto& w : words) args += " " + w.get<std::string>();
  return args;
}

// reference.json holds float32 values as their shortest decimal: compared as float32.
double worst(const json& got, const json& want) {
  return attnviz::test::worst(got, want, true);
}

// explain --format json for one head of one case.
json explain_json(const json& c, int head) {
  const auto r =
      run_attnviz("explain" + case_args(c) + " --head " + std::to_string(head) + " --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return json::parse(r.out);
}

// Every matrix of every head of the case against torch; returns the largest difference seen.
double check_case(const std::string& name, const std::string& mask) {
  const json& c = reference().at(name);
  const int heads = c.at("heads").get<int>();
  const json per_head = c.at("per_head");
  REQUIRE(static_cast<int>(per_head.size()) == heads);
  double largest = 0;
  for (int h = 0; h < heads; ++h) {
    CAPTURE(name);
    CAPTURE(h);
    const json got = explain_json(c, h);
    CHECK(got.at("heads") == heads);
    CHECK(got.at("d_in") == c.at("d_in"));
    CHECK(got.at("d_k") == c.at("d_k"));
    CHECK(got.at("d_v") == c.at("d_v"));
    CHECK(got.at("mask") == mask);
    CHECK(got.at("scale").get<double>() ==
          doctest::Approx(c.at("scale").get<double>()).epsilon(1e-7));
    const json& want = per_head[static_cast<size_t>(h)];
    // Magnitudes: inputs ~1, q·k up to ~30, everything else below 10: 1e-5 is float rounding.
    for (const std::string step : {"q", "k", "v", "qk", "scores", "probs", "output"}) {
      CAPTURE(step);
      const double d = worst(got.at(step), want.at(step));
      CHECK(d < 1e-5);
      largest = std::max(largest, d);
    }
    std::vector<std::string> whole = {"x", "merged", "out"};
    if (c.contains("x_kv")) whole.push_back("x_kv");
    for (const auto& step : whole) {
      CAPTURE(step);
      const double d = worst(got.at(step), c.at(step));
      CHECK(d < 1e-5);
      largest = std::max(largest, d);
    }
  }
  return largest;
}

}  // namespace

TEST_CASE(
    "explain tutorial modules: SelfAttention, every head of MultiHeadAttention and CrossAttention "
    "equal torch") {
  CHECK(check_case("seed000_self", "none") < 1e-5);
  CHECK(check_case("seed000_mha", "none") < 1e-5);
  CHECK(check_case("seed000_cross", "none") < 1e-5);
  // The cross map is rectangular: 8 decoder queries × 10 encoder keys.
  const json got = explain_json(reference().at("seed000_cross"), 0);
  CHECK(got.at("site") == "cross");
  CHECK(got.at("probs").size() == 8);
  CHECK(got.at("probs")[0].size() == 10);
  CHECK(got.at("x_kv").size() == 10);
}

TEST_CASE(
    "explain tutorial modules: the causal NaiveAttention equals torch; row 0 is [1, 0, 0, 0, 0], "
    "rows sum to 1, "
    "zeros above the diagonal") {
  CHECK(check_case("seed002", "causal") < 1e-5);
  const json got = explain_json(reference().at("seed002"), 0);
  const json p = got.at("probs"), s = got.at("scores");
  REQUIRE(p.size() == 5);
  // Row 0 is [1, 0, 0, 0, 0]; every row sums to 1; the upper triangle is 0 (its scores −inf).
  for (size_t j = 0; j < 5; ++j) CHECK(p[0][j].get<double>() == (j == 0 ? 1.0 : 0.0));
  for (size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    double sum = 0;
    for (size_t j = 0; j < 5; ++j) {
      sum += p[i][j].get<double>();
      if (j > i) {
        CHECK(p[i][j].get<double>() == 0.0);
        CHECK(s[i][j] == "-inf");
      } else {
        CHECK(p[i][j].get<double>() > 0.0);
      }
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE(
    "explain tutorial modules: the text names each step as the modules compute it, at their "
    "shapes") {
  const json& ref = reference();
  // NaiveAttention: one fused Linear split into q, k, v; 1/sqrt(k.size(-1)); masked_fill −inf; no
  // W_O.
  const auto naive = run_attnviz("explain" + case_args(ref.at("seed002")) + " --head 0");
  REQUIRE_MESSAGE(naive.exit_code == 0, naive.err);
  size_t at = 0;
  for (const char* step :
       {"5 queries × 5 keys · input width 4 · 1 head of d_k 4, d_v 4 · mask: causal",
        "2. Projections: one fused Linear makes [Q | K | V] = X·W_qkvᵀ + b_qkv [5, 12], split by "
        "columns into Q [5, 1·4], K and V; one head, so head 0 is the whole of Q",
        "3. Scores: Q_0·K_0ᵀ [5, 5]", "4. Scale: × 0.5 = 1/√4", "5. Mask (causal): masked_fill",
        "6. Softmax, row by row", "7. Output of head 0: O_0 = P·V_0 [5, 4]",
        "8. Merge: O_0 (one head: nothing to concatenate) [5, 4]; the module has no output "
        "projection"}) {
    CAPTURE(std::string(step));
    const size_t found = naive.out.find(step, at);
    REQUIRE(found != std::string::npos);
    at = found;
  }
  CHECK(!contains(naive.out, "then the output projection W_O"));
  // MultiHeadAttention: view(batch, seq, heads, 64).transpose(1, 2), sqrt(64), Concat, out.
  const auto mha =
      run_attnviz("explain" + case_args(ref.at("seed000_mha")) + " --head 5 --rows 2 --cols 2");
  REQUIRE_MESSAGE(mha.exit_code == 0, mha.err);
  CHECK(contains(
      mha.out,
      "Q = X·W_qᵀ + b_q is [10, 8·64]; view(10, 8, 64).transpose makes Q [8, 10, 64], and head 5 "
      "is columns 320–383 of Q"));
  CHECK(contains(mha.out, "4. Scale: × 0.125 = 1/√64"));
  CHECK(contains(
      mha.out,
      "8. Merge: Concat(O_0, …, O_7) (transpose back, view) [10, 512], then the output projection "
      "W_O → [10, 512]"));
  // SelfAttention and CrossAttention have no out Linear: P·V is the output.
  const auto self =
      run_attnviz("explain" + case_args(ref.at("seed000_self")) + " --head 0 --rows 2 --cols 2");
  REQUIRE_MESSAGE(self.exit_code == 0, self.err);
  CHECK(contains(self.out,
                 "10 queries × 10 keys · input width 128 · 1 head of d_k 64, d_v 64 · mask: none"));
  CHECK(contains(
      self.out,
      "2. Projections: Q = X·W_qᵀ + b_q is [10, 1·64]; one head, so head 0 is the whole of Q"));
  CHECK(contains(self.out, "4. Scale: × 0.125 = 1/√64"));
  CHECK(contains(self.out, "the module has no output projection W_O: this is its output"));
  const auto cross =
      run_attnviz("explain" + case_args(ref.at("seed000_cross")) + " --head 0 --rows 2 --cols 2");
  REQUIRE_MESSAGE(cross.exit_code == 0, cross.err);
  CHECK(contains(cross.out, "8 queries × 10 keys · input width 128"));
  CHECK(contains(cross.out, "keys and values from the source X_kv [10, 128]"));
  CHECK(contains(cross.out, "3. Scores: Q_0·K_0ᵀ [8, 10]"));
  CHECK(contains(cross.out, "the module has no output projection W_O: this is its output"));
}
