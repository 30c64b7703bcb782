// So doctest prints colours as (r, g, b) in failed checks.
#pragma once

#include <ostream>

#include "attnviz/render/colormap.hpp"

namespace attnviz {
inline std::ostream& operator<<(std::ostream& os, const Rgb& c) {
  return os << '(' << int{c.r} << ", " << int{c.g} << ", " << int{c.b} << ')';
}
}  // namespace attnviz
