// Dispatch on the config's norm kind.
#include "attnviz/compute/norm.hpp"

#include "attnviz/compute/layer_norm.hpp"
#include "attnviz/compute/rms_norm.hpp"

namespace attnviz {

Matrix normalize(ConstMatrixRef x, const LayerNormWeights& w, const Config& c) {
  switch (c.norm) {
    case NormKind::rms_norm:
      return rms_norm(x, w, c.layer_norm_eps);
    case NormKind::layer_norm:
      break;
  }
  return layer_norm(x, w, c.layer_norm_eps);
}

}  // namespace attnviz
