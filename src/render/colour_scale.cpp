// Linear or log: what --log / --linear ask for, else log for long causal maps.
#include "attnviz/render/colour_scale.hpp"

#include <algorithm>

namespace attnviz {

bool log_scale_for(const MapInfo& info, ColourScale scale) {
  if (scale != ColourScale::auto_scale) return scale == ColourScale::log;
  return info.mask->causal && std::max(info.n_query, info.n_key) > k_auto_log_tokens;
}

}  // namespace attnviz
