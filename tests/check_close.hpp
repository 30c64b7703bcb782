// check_close: compare two matrices, printing the first mismatches and the max difference (llm.c style).
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "attnviz/core/matrix.hpp"

namespace attnviz::test {

inline float max_abs_diff(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

inline void check_close(const Matrix& actual, const Matrix& expected, float tolerance,
                        const std::string& what) {
  REQUIRE_MESSAGE(actual.rows() == expected.rows(), what << ": rows " << actual.rows() << " vs " << expected.rows());
  REQUIRE_MESSAGE(actual.cols() == expected.cols(), what << ": cols " << actual.cols() << " vs " << expected.cols());
  float worst = 0.0f;
  int shown = 0;
  std::string report;
  for (Eigen::Index i = 0; i < actual.rows(); ++i) {
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const float d = std::fabs(actual(i, j) - expected(i, j));
      if (!(d <= tolerance) && shown < 5) {
        report += fmt::format("  [{}, {}] actual {:.7g} expected {:.7g} diff {:.3g}\n", i, j,
                              actual(i, j), expected(i, j), d);
        ++shown;
      }
      if (!(d <= worst)) worst = d;
    }
  }
  CHECK_MESSAGE(worst <= tolerance,
                what << ": max abs diff " << worst << " > " << tolerance << "\n" << report);
}

}  // namespace attnviz::test
