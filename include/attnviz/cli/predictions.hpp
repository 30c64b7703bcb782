// `run --logits K`: the model's top-K next-token predictions at each position, after the forward
// pass.
#pragma once

#include <string>

#include "attnviz/cli/prepare.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

// A usage error naming why, when the model has no unembedding (no lm_head, not tied) or the
// output cannot hold the table (csv holds one table: --table none with --logits).
void check_logits_flag(const PreparedRun& run, int k, TableFormat format, bool map_tables);

// The table of each target position's k most likely next tokens (labels from the tokenizer, else
// vocab.txt, else "#id"), from the final hidden states forward returned.
std::string predictions_table(const PreparedRun& run, const Matrix& hidden, int k,
                              const TableStyle& style);

}  // namespace attnviz
