// Attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3): the
// layers as a graph with a node per token before and after each layer and an edge from token i
// after layer k to token j before it, of capacity Â_k(i, j) (the layer's heads combined with the
// residual added, as rollout.hpp makes them). The flow from token i after the last layer to input
// token j is the value of a maximum flow between the two nodes; each row is then divided by its
// sum, as the paper's code does, so it reads as shares like a rollout row.
//
// It is one maximum flow per (i, j) pair on a graph of L·N² edges: roughly L·N⁴ steps, so it is
// for short inputs (attention_flow_cost says how many edge visits to expect; rollout.hpp's
// collector refuses past RolloutOptions::max_flow_tokens).
#pragma once

#include <cstdint>
#include <vector>

#include "attnviz/core/matrix.hpp"

namespace attnviz {

// layers[k] is Â_{k+1}: [N, N], row i the capacities from token i after that layer to each token
// before it. Returns F [N, N]: F(i, j) the flow from output token i to input token j, rows summing
// to 1 (a row with no flow at all stays zero). Rows are spread over `threads` threads.
Matrix attention_flow(const std::vector<Matrix>& layers, int threads);

// The number of (pair, edge) steps one attention_flow call costs at most in its first BFS:
// N² pairs × L·N² edges. For messages about the limit.
int64_t attention_flow_cost(int64_t tokens, int64_t layers);

}  // namespace attnviz
