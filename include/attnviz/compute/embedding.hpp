// Token embeddings: a row of the model's table (nn.Embedding), or a deterministic hash embedding.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/inputs/sequence.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// The embedding of a token for a model without a vocabulary: x ~ N(0, 1)^d_model drawn from the
// splitmix64 generator seeded with FNV-1a-64 of the token's UTF-8 bytes. Equal tokens get equal
// vectors, so repeated words attend alike; any token file runs on any random model.
RowVector hash_embedding(std::string_view token, int d_model);

// A longer input than config.max_positions is an error naming `what` ("tokens", "ids", a file).
void check_length(const Model& model, size_t n, const std::string& what);
// Tokens for a model without a table: hash_embedding of each (a note says so). Then, as the model's
// config says: × sqrt(d_model) (annotated transformer), + positions (learned rows or sinusoidal),
// + token type 0 (BERT), LayerNorm (BERT).
Sequence embed_hashed(const Model& model, const std::vector<std::string>& tokens);
// Ids to vectors, labelled `labels`: table rows when the model has a table (id < vocab_size), else
// hash_embedding of "#id" (noted); then positions etc. as for tokens. An encoder-decoder's `source`
// feeds its encoder, the target its decoder: each with the stack's own position table and norm
// when it has them (BART's).
Sequence embed_ids(const Model& model, const std::vector<int64_t>& ids,
                   std::vector<std::string> labels, bool source = false);
// Checks a given [n, width] matrix against the model (width: d_model, or kdim for a lone attention
// module's keys; max_positions) and labels it.
// The matrix feeds the first layer as it is: no scaling, positions or norm are added.
Sequence embedded_input(const Model& model, Matrix x, std::vector<std::string> labels,
                        const std::string& what, int width);

}  // namespace attnviz
