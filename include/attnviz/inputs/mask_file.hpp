// --mask FILE: the masks PyTorch users have (0/1 keep masks, additive 0/−inf masks,
// True-means-blocked masks as nn.MultiheadAttention takes them), as text or .npy, read into
// attnviz's 0/1 keep matrix.
#pragma once

#include <string>

#include "attnviz/event/mask.hpp"

namespace attnviz {

// What the values of a mask file mean.
enum class MaskConvention {
  automatic,  // decided by dtype and values; an error when they do not decide it
  keep,      // 1 / True = the key may be attended (subsequent_mask, HF attention_mask, SDPA's bool)
  block,     // 1 / True = the key is masked (nn.MultiheadAttention's attn_mask / key_padding_mask)
  additive,  // added to the scores: 0 = attend, −inf or ≤ −1e4 = masked
             // (generate_square_subsequent_mask)
};

// "auto", "keep", "block", "additive" → the convention; anything else is a usage error.
MaskConvention parse_mask_convention(const std::string& name);

// Reads a mask of shape [n_query, n_key], [1, n_key] or [n_key] (one row for every query, as
// PyTorch broadcasts it), with any number of leading dimensions of size 1 ([1, 1, N, N]).
// Text: rows of numbers separated by spaces, commas or tabs (0/1, or floats as np.savetxt writes
// them, -inf included); .npy: bool, integer or float. Every value must fit the convention; an
// error names the file, the value, its position and the convention.
MaskMatrix read_mask_file(const std::string& path, int n_query, int n_key,
                          MaskConvention convention);

}  // namespace attnviz
