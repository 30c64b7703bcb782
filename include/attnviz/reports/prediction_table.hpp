// `run --logits K`: each position's top-K next-token predictions as a table (text, csv, json,
// markdown).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/render/table.hpp"

namespace attnviz {

// One prediction at one position.
struct PredictionRow {
  int64_t position = 0;
  std::string token;  // the input token at the position
  int rank = 1;       // 1 = the most likely next token
  int64_t id = 0;
  std::string label;  // the predicted token: the tokenizer's label, else "#id"
  float logit = 0;
  float probability = 0;
};

// Columns position, token, rank, id, next, logit, probability; one row per prediction, rows of a
// position together, rank 1 first. text and markdown: aligned columns under `title`, position and
// token only on a position's first row; csv: every field on every row; json: {"title", "positions":
// [{"position", "token", "predictions": [{"rank", "id", "next", "logit", "probability"}]}]}, NaN /
// ±inf as the strings "nan" / "inf" / "-inf". Logits and probabilities with style.precision digits
// (json: shortest round-trip).
std::string render_predictions(const std::string& title, const std::vector<PredictionRow>& rows,
                               const TableStyle& style);

}  // namespace attnviz
