// Resolving input flags into sequences (the CLI is the only part that knows both sides: inputs
// read and look up, compute embeds).
#pragma once

#include <string>
#include <vector>

#include "attnviz/inputs/sequence.hpp"
#include "attnviz/inputs/vocabulary.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// The vocabulary tokens are looked up in: the one beside the weights when the model has an
// embedding table, else none (tokens are hash-embedded).
Vocabulary vocabulary_of(const Model& model);

// Tokens to vectors: with a table, token → id through the vocabulary ([UNK] labelled and noted),
// then table rows; without one, hash vectors (noted).
Sequence embed_tokens(const Model& model, const Vocabulary& vocab, const std::vector<std::string>& tokens);

// One of: tokens (file or -), ids (a list, or a file holding one), embeddings (.npy, labelled by
// tokens when given too). `role` is "target" or "source", for messages.
Sequence resolve_sequence(const Model& model, const Vocabulary& vocab, const std::string& tokens,
                          const std::string& ids, const std::string& embeddings, const std::string& role);

}  // namespace attnviz
