// Maximum flow on a small directed graph with real capacities (Dinic's algorithm: BFS levels, then
// blocking flows along level-increasing edges). Attention flow (attention_flow.hpp) runs it once
// per (output token, input token) pair on the same graph, so the graph is built once and each run
// starts from the stored capacities.
#pragma once

#include <vector>

namespace attnviz {

class FlowNetwork {
 public:
  explicit FlowNetwork(int nodes);
  void add_edge(int from, int to, double capacity);  // a capacity ≤ 0 adds nothing
  // The value of a maximum flow from source to sink; every run starts from the capacities (the
  // flows of an earlier run are forgotten). Residual capacities below 1e-12 count as saturated.
  double max_flow(int source, int sink);
  int nodes() const { return static_cast<int>(first_.size()); }

 private:
  bool levels_from(int source, int sink);
  double push(int node, int sink, double limit);

  struct Edge {
    int to;
    int next;  // the next edge out of the same node, −1 at the end
    double capacity;
  };
  std::vector<Edge> edges_;  // edge e's reverse is e ^ 1
  std::vector<int> first_;   // first edge out of each node, −1 for none
  std::vector<double> residual_;
  std::vector<int> level_, cursor_, queue_;
};

}  // namespace attnviz
