// check_close: compare two arrays, printing the first mismatches and the max difference (llm.c
// style).
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "attnviz/core/matrix.hpp"

namespace attnviz::test {

struct CloseReport {
  int64_t mismatches = 0;  // elements with !(|a − e| <= tolerance): NaN is a mismatch
  float worst = 0.0f;      // the largest difference, NaN when any difference is NaN
  std::string first;       // the first 5 mismatches, one per line
};

// index_of(i) names element i for the report ("[2, 3]").
inline CloseReport compare_close(std::span<const float> actual, std::span<const float> expected,
                                 float tolerance,
                                 const std::function<std::string(size_t)>& index_of) {
  CloseReport r;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float d = std::fabs(actual[i] - expected[i]);
    if (d <= tolerance) {
      if (d > r.worst) r.worst = d;
      continue;
    }
    if (r.mismatches++ < 5) {
      r.first += fmt::format("  {} actual {:.7g} expected {:.7g} diff {:.3g}\n", index_of(i),
                             actual[i], expected[i], d);
    }
    if (std::isnan(d) || d > r.worst) r.worst = d;
    if (std::isnan(d)) break;  // nothing can be worse; the report already names it
  }
  return r;
}

inline void check_close(const Matrix& actual, const Matrix& expected, float tolerance,
                        const std::string& what) {
  REQUIRE_MESSAGE(actual.rows() == expected.rows(),
                  what << ": rows " << actual.rows() << " vs " << expected.rows());
  REQUIRE_MESSAGE(actual.cols() == expected.cols(),
                  what << ": cols " << actual.cols() << " vs " << expected.cols());
  const auto cols = static_cast<size_t>(expected.cols());
  const CloseReport r = compare_close(
      std::span<const float>(actual.data(), static_cast<size_t>(actual.size())),
      std::span<const float>(expected.data(), static_cast<size_t>(expected.size())), tolerance,
      [cols](size_t i) { return fmt::format("[{}, {}]", i / cols, i % cols); });
  CHECK_MESSAGE(r.mismatches == 0, what << ": " << r.mismatches << " elements differ by more than "
                                        << tolerance << ", max abs diff " << r.worst << "\n"
                                        << r.first);
}

}  // namespace attnviz::test

// CLOSE(actual, expected, tolerance): check_close naming the actual expression.
#define CLOSE(actual, expected, tolerance) \
  attnviz::test::check_close(actual, expected, tolerance, #actual)
