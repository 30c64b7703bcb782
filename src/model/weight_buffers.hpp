// Float buffers for converted weights, reused from one layer to the next (private to src/model/).
#pragma once

#include <cstddef>
#include <memory>

namespace attnviz::detail {

// `n` floats, uninitialised: a buffer a dropped layer gave back when one of that size is free, else
// a new one. Layers repeat their shapes, so from the second layer on a conversion writes into pages
// already mapped instead of faulting in fresh zeroed memory (measured: the larger part of converting
// a BF16 layer). The buffer returns to the pool when the last owner drops it.
std::shared_ptr<float> weight_buffer(size_t n);

}  // namespace attnviz::detail
