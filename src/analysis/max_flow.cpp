// Dinic's maximum flow: augment along shortest residual paths, one blocking flow per BFS level
// graph.
#include "attnviz/analysis/max_flow.hpp"

#include <algorithm>

#include "attnviz/core/error.hpp"

namespace attnviz {
namespace {
constexpr double k_saturated = 1e-12;  // a residual capacity below this carries no more flow
}

FlowNetwork::FlowNetwork(int nodes) : first_(static_cast<size_t>(nodes), -1) {}

void FlowNetwork::add_edge(int from, int to, double capacity) {
  if (!(capacity > 0)) return;
  const int n = nodes();
  if (from < 0 || from >= n || to < 0 || to >= n)
    throw Error("flow network: an edge names a node that does not exist");
  edges_.push_back(Edge{to, first_[from], capacity});
  first_[from] = static_cast<int>(edges_.size()) - 1;
  edges_.push_back(Edge{from, first_[to], 0.0});  // the reverse edge, for flow pushed back
  first_[to] = static_cast<int>(edges_.size()) - 1;
}

bool FlowNetwork::levels_from(int source, int sink) {
  std::fill(level_.begin(), level_.end(), -1);
  level_[source] = 0;
  queue_.clear();
  queue_.push_back(source);
  for (size_t head = 0; head < queue_.size(); ++head) {
    const int u = queue_[head];
    for (int e = first_[u]; e != -1; e = edges_[e].next) {
      const int v = edges_[e].to;
      if (level_[v] < 0 && residual_[e] > k_saturated) {
        level_[v] = level_[u] + 1;
        queue_.push_back(v);
      }
    }
  }
  return level_[sink] >= 0;
}

// Pushes up to `limit` from node towards sink along edges one level up; returns what got through.
double FlowNetwork::push(int node, int sink, double limit) {
  if (node == sink) return limit;
  double sent = 0;
  for (int& e = cursor_[node]; e != -1; e = edges_[e].next) {
    const int v = edges_[e].to;
    if (level_[v] != level_[node] + 1 || residual_[e] <= k_saturated) continue;
    const double got = push(v, sink, std::min(limit - sent, residual_[e]));
    if (got > 0) {
      residual_[e] -= got;
      residual_[e ^ 1] += got;
      sent += got;
      if (limit - sent <= k_saturated) return sent;  // the cursor stays: this edge may carry more
    }
  }
  return sent;
}

double FlowNetwork::max_flow(int source, int sink) {
  const int n = nodes();
  if (source < 0 || source >= n || sink < 0 || sink >= n)
    throw Error("flow network: source or sink is not a node");
  if (source == sink) throw Error("flow network: source and sink are the same node");
  residual_.resize(edges_.size());
  for (size_t e = 0; e < edges_.size(); ++e) residual_[e] = edges_[e].capacity;
  level_.assign(static_cast<size_t>(n), -1);
  double total = 0;
  while (levels_from(source, sink)) {
    cursor_ = first_;
    for (;;) {
      const double got = push(source, sink, 1e300);
      if (got <= k_saturated) break;
      total += got;
    }
  }
  return total;
}

}  // namespace attnviz
