// Attention flow: one maximum flow per (output token, input token) pair on the layer graph.
#include "attnviz/analysis/attention_flow.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "attnviz/analysis/max_flow.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {
namespace {

// Node (k, t): token t after layer k (k = 0: the input tokens).
FlowNetwork layer_graph(const std::vector<Matrix>& layers) {
  const int n = static_cast<int>(layers.front().rows());
  const int depth = static_cast<int>(layers.size());
  FlowNetwork g((depth + 1) * n);
  for (int k = 1; k <= depth; ++k) {
    const Matrix& a = layers[static_cast<size_t>(k - 1)];
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j)
        g.add_edge(k * n + i, (k - 1) * n + j, static_cast<double>(a(i, j)));
    }
  }
  return g;
}

void flow_rows(const std::vector<Matrix>& layers, Matrix& out, int first_row, int step) {
  const int n = static_cast<int>(out.rows());
  const int top = static_cast<int>(layers.size()) * n;
  FlowNetwork g = layer_graph(layers);
  std::vector<double> row(static_cast<size_t>(n));
  for (int i = first_row; i < n; i += step) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      row[j] = g.max_flow(top + i, j);
      sum += row[j];
    }
    for (int j = 0; j < n; ++j) out(i, j) = sum > 0 ? static_cast<float>(row[j] / sum) : 0.0f;
  }
}

}  // namespace

int64_t attention_flow_cost(int64_t tokens, int64_t layers) {
  return tokens * tokens * layers * tokens * tokens;
}

Matrix attention_flow(const std::vector<Matrix>& layers, int threads) {
  if (layers.empty()) throw Error("attention flow: no layer to follow");
  const Eigen::Index n = layers.front().rows();
  for (const Matrix& a : layers) {
    if (a.rows() != n || a.cols() != n)
      throw Error("attention flow: every layer must be one N × N matrix");
  }
  Matrix out(n, n);
  const int team = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  // Rows dealt round-robin: under a causal mask later rows reach more keys, so blocks would be
  // uneven.
  std::vector<std::exception_ptr> failed(static_cast<size_t>(team));
  std::vector<std::thread> members;
  for (int t = 1; t < team; ++t) {
    members.emplace_back([&, t] {
      try {
        flow_rows(layers, out, t, team);
      } catch (...) {
        failed[static_cast<size_t>(t)] = std::current_exception();
      }
    });
  }
  try {
    flow_rows(layers, out, 0, team);
  } catch (...) {
    failed[0] = std::current_exception();
  }
  for (auto& m : members) m.join();
  for (const auto& f : failed) {
    if (f) std::rethrow_exception(f);
  }
  return out;
}

}  // namespace attnviz
