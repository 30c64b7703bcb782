// Mixture-of-experts FFN: route, then run each chosen expert once on the tokens routed to it.
#include "attnviz/compute/mixture_of_experts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attnviz/compute/feed_forward.hpp"
#include "attnviz/compute/linear.hpp"

namespace attnviz {

Routing route(ConstMatrixRef logits, int top_k, bool normalise) {
  const auto n = static_cast<int>(logits.cols());
  Routing r;
  r.top_k = top_k;
  r.experts.reserve(static_cast<size_t>(logits.rows() * top_k));
  r.weights.reserve(r.experts.capacity());
  std::vector<double> p(static_cast<size_t>(n));
  std::vector<int> order(static_cast<size_t>(n));
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    if (logits.row(t).array().isNaN().any()) {  // no order to choose by: the token's output is NaN
      for (int i = 0; i < top_k; ++i) {
        r.experts.push_back(i);
        r.weights.push_back(std::numeric_limits<float>::quiet_NaN());
      }
      continue;
    }
    // p = softmax(logits), max-shifted (torch: F.softmax(router_logits, dim=1, dtype=torch.float))
    const double m = logits.row(t).cast<double>().maxCoeff();
    double z = 0.0;
    for (int e = 0; e < n; ++e) z += p[size_t(e)] = std::exp(double(logits(t, e)) - m);
    for (double& v : p) v /= z;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return p[size_t(a)] > p[size_t(b)]; });
    double chosen = 0.0;
    for (int i = 0; i < top_k; ++i) chosen += p[size_t(order[size_t(i)])];
    for (int i = 0; i < top_k; ++i) {
      const int e = order[size_t(i)];
      r.experts.push_back(e);
      r.weights.push_back(static_cast<float>(normalise ? p[size_t(e)] / chosen : p[size_t(e)]));
    }
  }
  return r;
}

Matrix mixture_of_experts(ConstMatrixRef x, const ExpertWeights& w, const MixtureOfExperts& moe,
                          Activation activation, Routing* routing) {
  const Matrix logits = linear(x, w.router);  // [tokens, n_experts]
  Routing r = route(logits, moe.top_k, moe.normalise_top_k);
  Matrix y = Matrix::Zero(x.rows(), x.cols());
  std::vector<Eigen::Index> tokens;
  std::vector<float> gains;
  for (int e = 0; e < moe.n_experts; ++e) {
    tokens.clear();
    gains.clear();
    for (size_t i = 0; i < r.experts.size(); ++i) {
      if (r.experts[i] != e) continue;
      tokens.push_back(static_cast<Eigen::Index>(i / size_t(moe.top_k)));
      gains.push_back(r.weights[i]);
    }
    if (tokens.empty()) continue;  // never read from the file
    const FeedForwardWeights expert = w.expert(e);
    const Matrix out = feed_forward(x(tokens, Eigen::all), expert, activation);
    for (size_t i = 0; i < tokens.size(); ++i)
      y.row(tokens[i]) += gains[i] * out.row(Eigen::Index(i));
  }
  if (routing) *routing = std::move(r);
  return y;
}

}  // namespace attnviz
