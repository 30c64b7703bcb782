// --no-positions: without its positional encoding a bidirectional model is permutation equivariant
// (shuffle the tokens and every map permutes with them), which its positions break; a
// rotary model sees repeated tokens as one; a model without positions is refused the flag.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

const std::vector<int> k_ids = {5, 9, 13, 2, 7, 11};
const std::vector<int> k_perm = {2, 0, 4, 1, 5, 3};  // permuted[i] = ids[perm[i]]

std::string ids_text(const std::vector<int>& ids) {
  std::string s;
  for (const int id : ids) s += std::to_string(id) + " ";
  return s;
}

// The largest |P_b(i, j) − P_a(π(i), π(j))| over every map and head of the two saves.
float largest_mismatch(const SafetensorsFile& a, const SafetensorsFile& b) {
  float worst = 0;
  const int n = static_cast<int>(k_ids.size());
  for (const auto& t : a.tensors()) {
    if (!t.name.ends_with(".probs")) continue;
    const Tensor pa = a.load(t.name), pb = b.load(t.name);
    const auto heads = pa.shape[0];
    for (int64_t h = 0; h < heads; ++h) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          const float x = pb.data[static_cast<size_t>((h * n + i) * n + j)];
          const float y = pa.data[static_cast<size_t>((h * n + k_perm[i]) * n + k_perm[j])];
          worst = std::max(worst, std::abs(x - y));
        }
      }
    }
  }
  return worst;
}

}  // namespace

TEST_CASE(
    "no positions: shuffled tokens permute every map of a bidirectional model, with positions they "
    "do not") {
  attnviz::test::TempDir dir;
  std::vector<int> permuted;
  for (const int p : k_perm) permuted.push_back(k_ids[static_cast<size_t>(p)]);
  const auto save = [&](const std::vector<int>& ids, const std::string& flags,
                        const std::string& name) {
    const auto r =
        run_attnviz("run -m tests/fixtures/torch/hf_bert --ids '" + ids_text(ids) +
                    "' --no-heatmap --table none --save " + (dir / name).string() + flags);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return SafetensorsFile::open(dir / name);
  };
  const auto a = save(k_ids, " --no-positions", "a"), b = save(permuted, " --no-positions", "b");
  CHECK(largest_mismatch(a, b) < 1e-6f);
  const auto pa = save(k_ids, "", "pa"), pb = save(permuted, "", "pb");
  CHECK(largest_mismatch(pa, pb) > 1e-3f);
  CHECK(contains(a.metadata().at("model"), "(no positions)"));
}

TEST_CASE(
    "no positions: a rotary model sees a repeated token as one, a model without positions refuses "
    "the flag") {
  // Three copies of one token: without rotary every key is the same, so the last row is uniform.
  const auto r = run_attnviz(
      "run -m tests/fixtures/torch/hf_llama --ids '7 7 7' --layer 0 --head 0 --no-heatmap "
      "--format json --no-positions");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "0.33333"));
  const auto rotary = run_attnviz(
      "run -m tests/fixtures/torch/hf_llama --ids '7 7 7' --layer 0 --head 0 --no-heatmap "
      "--format json");
  REQUIRE(rotary.exit_code == 0);
  CHECK_FALSE(contains(rotary.out, "0.33333"));
  const auto none = run_attnviz("run -m samples/mha -t samples/english.txt --no-positions");
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "--no-positions: mha has no positional encoding to leave out"));
}
