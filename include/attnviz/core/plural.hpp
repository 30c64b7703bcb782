// "1 layer", "4 layers": counts in messages and descriptions read as English.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace attnviz {

// n and the noun, with an "s" unless n is 1 (every noun attnviz counts takes a plain "s").
inline std::string count_of(long long n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace attnviz
