// Comparing attnviz's JSON matrices (explain --format json) with a reference's.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace attnviz::test {

// max |got − want| over two JSON matrices; a null (masked) reference cell must be "-inf" in
// attnviz. as_float32: both sides rounded to float first (a reference holding float32 values as
// their shortest decimal, as torch's are written).
inline double worst(const nlohmann::json& got, const nlohmann::json& want,
                    bool as_float32 = false) {
  REQUIRE(got.size() == want.size());
  double w = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    REQUIRE(got[i].size() == want[i].size());
    for (size_t j = 0; j < want[i].size(); ++j) {
      if (want[i][j].is_null()) {
        CHECK(got[i][j] == "-inf");
        continue;
      }
      REQUIRE(got[i][j].is_number());
      double g = got[i][j].get<double>(), e = want[i][j].get<double>();
      if (as_float32) g = static_cast<float>(g), e = static_cast<float>(e);
      w = std::max(w, std::abs(g - e));
    }
  }
  return w;
}

}  // namespace attnviz::test
