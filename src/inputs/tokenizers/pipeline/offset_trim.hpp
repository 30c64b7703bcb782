// tokenizers' process_offsets (ByteLevel's and RobertaProcessing's trim_offsets): a piece's
// offsets leave out the spaces at its ends (private to inputs/).
#pragma once

#include <vector>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The spaces are read from the readable labels of byte-level pieces: a leading space shown "␣"
// (U+2423) and the spaces after it as ' ' (byte_label), one input byte each. With
// add_prefix_space, a single leading space of the first piece (the one ByteLevel added, or
// one at offset 0) stays. A label that holds a real U+2423 is taken for a space.
void trim_offsets(std::vector<TokenPiece>& pieces, bool add_prefix_space);

}  // namespace attnviz
