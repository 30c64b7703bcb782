// Colour map lookup: a value in [0, 1] to the nearest of a listed map's 256 colours.
#include "attnviz/render/colormap.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "attnviz/core/error.hpp"

namespace attnviz {

float colormap_position(float value, float vmin, float vmax) {
  const float span = vmax - vmin;
  if (std::isnan(value) || !(span > 0.0f) || !std::isfinite(span)) return 0.0f;
  const float t = (value - vmin) / span;
  return t <= 0.0f ? 0.0f : (t >= 1.0f ? 1.0f : t);  // also maps ±inf onto the ends
}

Rgb colormap(ColormapId id, float t) {
  const auto tables = detail::colormap_tables();
  const auto index = static_cast<size_t>(id);
  if (index >= tables.size()) {
    throw Error(fmt::format("colour map id {} has no table ({} maps known)", index, tables.size()));
  }
  const auto& colors = *tables[index].colors;
  if (std::isnan(t) || t <= 0.0f) return colors.front();
  if (t >= 1.0f) return colors.back();
  // matplotlib's Colormap.__call__: index = floor(t * N), N = 256, with t = 1 on the last entry;
  // so a colour here is the colour matplotlib's imshow draws for the same t.
  const auto n = colors.size();
  const auto k = static_cast<size_t>(t * static_cast<float>(n));
  return colors[k < n ? k : n - 1];
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
