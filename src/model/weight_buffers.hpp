// Float buffers for converted weights, reused from one layer to the next (private to src/model/).
#pragma once

#include <cstddef>
#include <memory>

namespace attnviz::detail {

// `n` floats, uninitialised: a buffer a dropped layer gave back when one of that size is free, else
// a new one. Layers repeat their shapes, so from the second layer on a conversion writes into pages
// already mapped instead of faulting in fresh zeroed memory (measured: the larger part of
// converting a BF16 layer). When `pooled`, the buffer returns to the pool when its last owner drops
// it, else it is freed: the last layer of a stack gives nothing back, so no pooled memory outlives
// the forward pass (and `--logits` after it runs without a layer's worth of idle buffers).
std::shared_ptr<float> weight_buffer(size_t n, bool pooled);
// Frees every buffer in the pool (the last layer takes what it can, then the rest goes).
void free_weight_buffers();

}  // namespace attnviz::detail
