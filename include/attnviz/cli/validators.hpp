// Short-spoken CLI11 validators: CLI11 2.1's own print the float range up to DBL_MAX in full.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

namespace attnviz {

namespace detail {
inline CLI::Validator number_validator(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& text) -> std::string {
        double value = 0.0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool ok = ec == std::errc() && end == text.data() + text.size() && value == value &&
                        (allow_zero ? value >= 0.0 : value > 0.0) && value < 1e300;
        return ok ? std::string()
                  : "'" + text + "' is not a " + (allow_zero ? "non-negative" : "positive") +
                        " number";
      },
      allow_zero ? "NONNEGATIVE" : "POSITIVE");
}
}  // namespace detail

inline CLI::Validator positive_number() {
  return detail::number_validator(false);
}
inline CLI::Validator non_negative_number() {
  return detail::number_validator(true);
}

}  // namespace attnviz
