// The planted model's reference (tests/fixtures/planted/reference.json, written by
// make_planted.py): its first input, and how far a saved [1, N, N] map is from one of the
// reference's N × N matrices.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/core/tensor.hpp"

namespace attnviz::test {

struct PlantedRepeat {
  nlohmann::json input;  // the "repeat" input: ids, cases, rollout, flow
  std::string ids;       // for --ids
  int n = 0;
};

inline PlantedRepeat planted_repeat_input() {
  std::ifstream in("tests/fixtures/planted/reference.json");
  REQUIRE(in);
  const auto reference = nlohmann::json::parse(in);
  PlantedRepeat r;
  r.input = reference.at("inputs")[0];
  REQUIRE(r.input.at("name") == "repeat");
  const auto ids = r.input.at("ids");
  for (const auto& id : ids) r.ids += std::to_string(id.get<int>()) + " ";
  r.n = static_cast<int>(ids.size());
  return r;
}

// max |t − want| over the map, t a [1, n, n] tensor and want an n × n JSON matrix.
inline double worst_difference(const Tensor& t, const nlohmann::json& want, int n) {
  REQUIRE(t.shape == std::vector<int64_t>{1, n, n});
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double w = want[static_cast<size_t>(i)][static_cast<size_t>(j)];
      worst = std::max(worst, std::abs(t.data[static_cast<size_t>(i * n + j)] - w));
    }
  }
  return worst;
}

}  // namespace attnviz::test
