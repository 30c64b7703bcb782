// A fixture's next-token predictions against PyTorch's: logits.safetensors (make_fixtures.py) holds
// the logits of every position and torch.topk's five ids; attnviz's top 5 must be those ids, with
// those logits to 1e-4.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attnviz/compute/logits.hpp"
#include "attnviz/io/safetensors.hpp"
#include "torch_fixtures.hpp"

namespace attnviz::test {

inline void check_top5(const std::vector<std::vector<Prediction>>& top,
                       const std::string& fixture) {
  const SafetensorsFile expected = SafetensorsFile::open(k_torch / fixture / "logits.safetensors");
  const Matrix logits = as_matrix(expected.load("logits")), top5 = as_matrix(expected.load("top5"));
  REQUIRE(top.size() == size_t(logits.rows()));
  for (size_t p = 0; p < top.size(); ++p) {
    CAPTURE(p);
    REQUIRE(top[p].size() == 5);
    for (size_t r = 0; r < 5; ++r) {
      CHECK(top[p][r].id == static_cast<int64_t>(top5(Eigen::Index(p), Eigen::Index(r))));
      CHECK(std::abs(top[p][r].logit - logits(Eigen::Index(p), top[p][r].id)) <= 1e-4f);
    }
  }
}

}  // namespace attnviz::test
