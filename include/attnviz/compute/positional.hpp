// Sinusoidal positional encoding (Vaswani et al. 2017, §3.5).
#pragma once

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/config.hpp"

namespace attnviz {

// PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(pos / base^(2i/d)); [n, d].
// base 10000 in the paper; some tutorials use 1000 (`--pe-base` reproduces it).
// `layout` halves: sin(pos / base^(2i/d)) in columns [0, ⌈d/2⌉), the cosines after them (Marian's
// MarianSinusoidalPositionalEmbedding); fairseq: sin(pos·ω_i) in [0, h), cos in [h, 2h), ω_i =
// base^(−i/(h−1)), h = ⌊d/2⌋, in float32 (M2M100's, NLLB's); an Error when h < 2. Rows are
// positions first … first + n − 1.
Matrix sinusoidal_encoding(int n, int d, float base,
                           SinusoidLayout layout = SinusoidLayout::interleaved, int first = 0);

}  // namespace attnviz
