// Counts and sizes as `inspect` prints them: grouped digits, decimal units, per-type totals.
// Private to src/cli/.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "attnviz/core/plural.hpp"
#include "attnviz/model/tensor_source.hpp"

namespace attnviz::detail {

// 1235814400 → "1,235,814,400": parameter counts of real models are read at a glance.
inline std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// Decimal units, as model cards and file managers give sizes: "2.47 GB", "159 kB", "512 bytes".
inline std::string decimal_size(uint64_t bytes) {
  if (bytes < 1000) return count_of(static_cast<long long>(bytes), "byte");
  const char* units[] = {"kB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes) / 1000.0;
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < std::size(units)) {
    value /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", value, value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2, units[unit]);
}

inline std::string describe_totals(const std::string& what, const DtypeTotals& t) {
  return fmt::format("  {}: {}, {} parameters ({})\n", what, count_of(t.tensors, "tensor"),
                     grouped(t.parameters), decimal_size(t.bytes));
}

}  // namespace attnviz::detail
