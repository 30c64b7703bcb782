// The arithmetic `explain` shows beside the model's own numbers: one cell's score and weight
// worked out in double, var(q·k) as `stats` defines it, a relative position bias as a matrix, and
// the score's formula (private to reports/).
#pragma once

#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/event/attention_block.hpp"
#include "attnviz/reports/explain_report.hpp"

namespace attnviz::detail {

// q_i·k_j term by term in double, the scale (and a relative bias, a soft-cap), and the softmax
// over row i's allowed keys from the model's own scores of that row.
struct CellMath {
  std::vector<double> terms;
  double dot = 0, bias = 0, scaled = 0, row_max = 0, exp_sum = 0, weight = 0;
  bool allowed = false;
};
CellMath cell_math(const HeadTrace& t, int i, int j);

// var(q·k) over the allowed cells of the rows with a choice (NaN when none has one), from raw =
// Q_h·K_hᵀ.
double qk_variance(const Matrix& raw, const HeadTrace& t);

// B_h [n_query, n_key]: what the relative position bias adds to each score; its buckets too.
Matrix bias_matrix(const RelativeBias& b, int head, Eigen::Index nq, Eigen::Index nk,
                   Matrix* buckets = nullptr);

// explain of an additive map (MapInfo::additive): its own steps (explain_additive.cpp).
std::string render_additive_explain(const HeadTrace& t, const ExplainOptions& o);

// "Q·Kᵀ / √d_k", "Q·Kᵀ" (unscaled), "0.0625·Q·Kᵀ", with "+ B" for a relative position bias.
std::string score_formula(const MapInfo& info, Eigen::Index dk);

}  // namespace attnviz::detail
