// Colour map lookup: a value in [0, 1] to the nearest of a listed map's 256 colours.
#include "attnviz/render/colormap.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "attnviz/core/error.hpp"

namespace attnviz {

const std::array<Rgb, 256>& colormap_colors(ColormapId id) {
  const auto tables = detail::colormap_tables();
  const auto index = static_cast<size_t>(id);
  if (index >= tables.size()) {
    throw Error(fmt::format("colour map id {} has no table ({} maps known)", index, tables.size()));
  }
  return *tables[index].colors;
}

// matplotlib's Colormap.__call__: index = floor(t * N), N = 256, with t = 1 on the last entry; so a
// colour here is the colour matplotlib's imshow draws for the same t.
Rgb colormap(ColormapId id, float t) {
  return colormap_colors(id)[colormap_index(t)];
}

ColormapId parse_colormap(std::string_view name) {
  const auto tables = detail::colormap_tables();
  std::string known;
  for (size_t k = 0; k < tables.size(); ++k) {
    if (tables[k].name == name) return static_cast<ColormapId>(k);
    known += (k == 0 ? "" : ", ") + std::string(tables[k].name);
  }
  throw usage_error(fmt::format("unknown colour map '{}' (known: {})", name, known));
}

}  // namespace attnviz
