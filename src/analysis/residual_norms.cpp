// Mean token norms around each residual sublayer.
#include "attnviz/analysis/residual_norms.hpp"

#include <cmath>

namespace attnviz {

namespace {
double mean_norm(ConstMatrixRef m) {
  if (m.rows() == 0) return 0;
  return m.cast<double>().rowwise().norm().mean();
}
}  // namespace

void ResidualCollector::sublayer(const SublayerStep& step, ConstMatrixRef x, ConstMatrixRef f_input,
                                 ConstMatrixRef update, ConstMatrixRef out) {
  SublayerNorms s{step.stack,
                  step.kind,
                  step.placement,
                  step.layer,
                  static_cast<int>(x.rows()),
                  mean_norm(x),
                  mean_norm(f_input),
                  mean_norm(update),
                  mean_norm(out),
                  0};
  double cos_sum = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const Eigen::VectorXd a = x.row(i).cast<double>().transpose(),
                          b = update.row(i).cast<double>().transpose();
    const double d = a.norm() * b.norm();
    cos_sum += d > 0 ? a.dot(b) / d : 0.0;
  }
  s.cosine = x.rows() > 0 ? cos_sum / static_cast<double>(x.rows()) : 0;
  sublayers_.push_back(std::move(s));
}

}  // namespace attnviz
