// Head-by-head differences of two maps, in double, row by row.
#include "attnviz/analysis/map_diff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz {

namespace {
// Σ x ln x over a row (0 ln 0 = 0), the negative entropy.
double plogp(double p) {
  return p > 0 ? p * std::log(p) : 0.0;
}
}  // namespace

HeadDiff diff_head(const float* a, const float* b, int64_t n_query, int64_t n_key) {
  HeadDiff d;
  double abs_sum = 0.0, jsd_sum = 0.0, ha = 0.0, hb = 0.0;
  bool nan = false;
  for (int64_t i = 0; i < n_query; ++i) {
    const float* p = a + i * n_key;
    const float* q = b + i * n_key;
    double sum_p = 0.0, sum_q = 0.0, js = 0.0, hp = 0.0, hq = 0.0;
    for (int64_t j = 0; j < n_key; ++j) {
      const double x = p[j], y = q[j];
      if (std::isnan(x) || std::isnan(y)) nan = true;
      const double diff = std::fabs(y - x);
      abs_sum += diff;
      d.max_abs = std::max(d.max_abs, diff);
      sum_p += x, sum_q += y;
      // JSD = ½ Σ p ln(p / m) + ½ Σ q ln(q / m), m = (p + q) / 2; in bits below
      const double m = 0.5 * (x + y);
      js += 0.5 * (plogp(x) + plogp(y)) - plogp(m);
      hp -= plogp(x), hq -= plogp(y);
    }
    if (sum_p > 0 && sum_q > 0) {
      ++d.rows_compared;
      jsd_sum += js / std::log(2.0);
      ha += hp, hb += hq;
    } else if (sum_p > 0 || sum_q > 0) {
      ++d.rows_one_sided;
    }
  }
  const auto cells = static_cast<double>(n_query) * static_cast<double>(n_key);
  d.mean_abs = cells > 0 ? abs_sum / cells : 0.0;
  const auto rows = static_cast<double>(d.rows_compared);
  d.jsd = rows > 0 ? jsd_sum / rows : 0.0;
  d.entropy_a = rows > 0 ? ha / rows : 0.0;
  d.entropy_b = rows > 0 ? hb / rows : 0.0;
  if (nan) {
    const double q = std::numeric_limits<double>::quiet_NaN();
    d.max_abs = d.mean_abs = d.jsd = d.entropy_a = d.entropy_b = q;
  }
  return d;
}

}  // namespace attnviz
