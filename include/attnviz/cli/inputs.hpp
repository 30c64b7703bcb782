// Resolving input flags into sequences (the CLI is the only part that knows both sides).
#pragma once

#include <string>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// One of: tokens (file or -), ids (a list, or a file holding one), embeddings (.npy, labelled by
// tokens when given too). `role` is "target" or "source", for messages.
Sequence resolve_sequence(const Model& model, const std::string& tokens, const std::string& ids,
                          const std::string& embeddings, const std::string& role);

}  // namespace attnviz
