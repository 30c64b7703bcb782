// Resolving input flags into sequences and masks (the CLI is the only part that knows both sides).
#pragma once

#include <string>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/mask.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// One of: tokens (file or -), ids (a list, or a file holding one), embeddings (.npy, labelled by
// tokens when given too). `role` is "target" or "source", for messages.
Sequence resolve_sequence(const Model& model, const std::string& tokens, const std::string& ids,
                          const std::string& embeddings, const std::string& role);

// A 0/1 mask matrix [n_query, n_key] from a text file (rows of 0/1 separated by spaces or commas)
// or a .npy file (non-zero = allowed).
MaskMatrix read_mask_file(const std::string& path, int n_query, int n_key);

}  // namespace attnviz
