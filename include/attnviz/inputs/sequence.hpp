// What enters the attention stack: one vector per token, with the labels the axes show.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// A sequence entering the attention stack: one row of x per token, labelled for the axes.
struct Sequence {
  std::vector<std::string> labels;  // what the model saw: "[UNK]" where a token was unknown
  Matrix x;                         // [n, d_model]
  std::vector<std::string> notes;   // for stderr: unknown tokens counted, hash embeddings used
  std::vector<int64_t> ids;         // the token ids, when the sequence was embedded from ids (text,
                                    // ids, tokens through a vocabulary); empty otherwise
  // An image's patches: `rows` × `cols` patch tokens from row `first` on, row by row, each
  // `patch` pixels square (0 rows: not an image).
  struct PatchGrid {
    int first = 0, rows = 0, cols = 0, patch = 0;
  } grid;
};

}  // namespace attnviz
