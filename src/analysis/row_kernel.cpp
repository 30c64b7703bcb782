// The row sums of row_kernel.hpp: compiled once per x86 target by Highway, the best one chosen at
// run time. Tails run the same code one lane at a time, so a sum never depends on the row's length.
// Highway's per-target re-inclusion needs this order of includes.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/analysis/row_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <limits>

#include "attnviz/analysis/row_kernel.hpp"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace attnviz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Float lanes add at most k_chunk terms each before their sum moves to a double: a row has up to
// 32,768 keys, and a float running sum of that many terms could lose ~1e-4 of Z (or of Σ p log p);
// k_chunk = 16 bounds each lane's float error to ~16 ulp of its chunk, the double total adds
// nothing. Every sum below is of terms of one sign (or of (s − mean)), so no cancellation.
constexpr int k_chunk = 16;
constexpr float k_ln_min_normal = -87.336544750553f;  // ln(FLT_MIN)
// Squares and cubes of smaller values would be subnormal (slow on x86): they count 0, an error
// under n · 2^-126 ≈ 4e-34 in a row's Σ p², Σ p³ (and Σ e², Σ e³).
constexpr float k_square_floor = 5.421010862e-20f;  // 2^-63
constexpr float k_cube_floor = 2.273736754e-13f;    // 2^-42

template <class D>
double lane_sum(D d, hn::Vec<D> v) {
  return static_cast<double>(hn::GetLane(hn::SumOfLanes(d, v)));
}

// Pass 1: max p, the two largest s (per lane, merged at the end), Σ p and Σ s. A NaN or ±inf
// anywhere makes Σ p or Σ s non-finite (as does a sum too large for a float: that row then takes
// the scalar path too), so no test per value is needed.
template <class D>
struct FirstPass {
  using V = hn::Vec<D>;
  V max_p, top1, top2, sum_p, sum_s;
  explicit FirstPass(D d)
      : max_p(hn::Set(d, -std::numeric_limits<float>::infinity())),
        top1(max_p),
        top2(max_p),
        sum_p(hn::Zero(d)),
        sum_s(hn::Zero(d)) {}
  void add(D /*d*/, V p, V s) {
    max_p = hn::Max(max_p, p);
    top2 = hn::Max(top2, hn::Min(top1, s));  // s == top1 twice: top2 = top1 (a tie, gap 0)
    top1 = hn::Max(top1, s);
    sum_p = hn::Add(sum_p, p);
    sum_s = hn::Add(sum_s, s);
  }
  void flush(D d, RowSums& out) {
    out.p_sum += lane_sum(d, sum_p);
    out.score_sum += lane_sum(d, sum_s);
    sum_p = sum_s = hn::Zero(d);
  }
  // Folds the lanes into out's max and top two (as a multiset: the row's top two are among the
  // lanes' top twos).
  void finish(D d, RowSums& out) const {
    float a[hn::MaxLanes(D())], b[hn::MaxLanes(D())];
    hn::StoreU(top1, d, a);
    hn::StoreU(top2, d, b);
    for (size_t l = 0; l < hn::Lanes(d); ++l) {
      for (float v : {a[l], b[l]}) {
        if (v > out.top1) {
          out.top2 = out.top1;
          out.top1 = v;
        } else if (v > out.top2) {
          out.top2 = v;
        }
      }
    }
    out.max_weight = std::max(out.max_weight, hn::GetLane(hn::MaxOfLanes(d, max_p)));
  }
};

// Pass 2, with max p, top1, c and the mean known: the rest sums, Σ p (s − top1), e, and (s − mean).
template <class D>
struct SecondPass {
  using V = hn::Vec<D>;
  V max_p, top1, c, mean, square_floor, cube_floor, ln_min_normal;
  V p_top, rest_p2, rest_p3, p_gap, rest_e, e_d, rest_e2, rest_e3, dev, dev2;
  int64_t n_at_max = 0, n_at_top = 0;
  SecondPass(D d, float max_weight, float top, float factor, float mean_f)
      : max_p(hn::Set(d, max_weight)),
        top1(hn::Set(d, top)),
        c(hn::Set(d, factor)),
        mean(hn::Set(d, mean_f)),
        square_floor(hn::Set(d, k_square_floor)),
        cube_floor(hn::Set(d, k_cube_floor)),
        ln_min_normal(hn::Set(d, k_ln_min_normal)),
        p_top(hn::Zero(d)) {
    zero(d);
  }
  void zero(D d) {
    rest_p2 = rest_p3 = p_gap = rest_e = e_d = rest_e2 = rest_e3 = dev = dev2 = hn::Zero(d);
  }
  void add(D d, V p, V s) {
    const auto at_max = hn::Eq(p, max_p);
    n_at_max += static_cast<int64_t>(hn::CountTrue(d, at_max));
    const V p_rest = hn::IfThenZeroElse(hn::Or(at_max, hn::Lt(p, square_floor)), p);
    const V p2 = hn::Mul(p_rest, p_rest);
    rest_p2 = hn::Add(rest_p2, p2);
    rest_p3 = hn::MulAdd(p2, hn::IfThenZeroElse(hn::Lt(p, cube_floor), p_rest), rest_p3);

    const V gap = hn::Sub(s, top1);  // ≤ 0
    const auto at_top = hn::Eq(s, top1);
    n_at_top += static_cast<int64_t>(hn::CountTrue(d, at_top));
    p_top = hn::Max(p_top, hn::IfThenElseZero(at_top, p));
    p_gap = hn::MulAdd(p, gap, p_gap);

    const V x = hn::Mul(gap, c);
    const auto live = hn::Ge(x, ln_min_normal);
    const V e = hn::IfThenElseZero(live, hn::Exp(d, hn::IfThenElseZero(live, x)));
    e_d = hn::MulAdd(e, x, e_d);
    const V e_rest = hn::IfThenZeroElse(at_top, e);
    rest_e = hn::Add(rest_e, e_rest);
    const V e_square = hn::IfThenZeroElse(hn::Lt(e_rest, square_floor), e_rest);
    const V e2 = hn::Mul(e_square, e_square);
    rest_e2 = hn::Add(rest_e2, e2);
    rest_e3 = hn::MulAdd(e2, hn::IfThenZeroElse(hn::Lt(e_rest, cube_floor), e_rest), rest_e3);

    const V dv = hn::Sub(s, mean);
    dev = hn::Add(dev, dv);
    dev2 = hn::MulAdd(dv, dv, dev2);
  }
  void flush(D d, RowSums& out, double& dev_total, double& dev2_total) {
    out.rest_p2 += lane_sum(d, rest_p2);
    out.rest_p3 += lane_sum(d, rest_p3);
    out.p_gap += lane_sum(d, p_gap);
    out.rest_e += lane_sum(d, rest_e);
    out.e_d += lane_sum(d, e_d);
    out.rest_e2 += lane_sum(d, rest_e2);
    out.rest_e3 += lane_sum(d, rest_e3);
    dev_total += lane_sum(d, dev);
    dev2_total += lane_sum(d, dev2);
    zero(d);
  }
  void finish(D d, RowSums& out) const {
    out.p_top = std::max(out.p_top, hn::GetLane(hn::MaxOfLanes(d, p_top)));
    out.n_at_max += n_at_max;
    out.n_at_top += n_at_top;
  }
};

// Runs acc.add over [begin, n) in whole vectors of D, calling flush every k_chunk vectors and at
// the end; returns where it stopped.
template <class D, class Acc, class Flush>
size_t sweep(D d, const float* probs, const float* scores, size_t begin, size_t n, Acc& acc,
             Flush flush) {
  const size_t lanes = hn::Lanes(d);
  size_t i = begin;
  int k = 0;
  for (; i + lanes <= n; i += lanes) {
    acc.add(d, hn::LoadU(d, probs + i), hn::LoadU(d, scores + i));
    if (++k == k_chunk) {
      flush(acc);
      k = 0;
    }
  }
  flush(acc);
  return i;
}

RowSums row_sums(const float* probs, const float* scores, size_t n, float c) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  RowSums out;
  out.n = static_cast<int64_t>(n);
  out.max_weight = out.top1 = out.top2 = -std::numeric_limits<float>::infinity();
  if (n == 0) return out;

  FirstPass<decltype(d)> first(d);
  FirstPass<decltype(d1)> first1(d1);
  size_t i = sweep(d, probs, scores, 0, n, first, [&](auto& a) { a.flush(d, out); });
  sweep(d1, probs, scores, i, n, first1, [&](auto& a) { a.flush(d1, out); });
  first.finish(d, out);
  first1.finish(d1, out);
  out.finite = std::isfinite(out.p_sum) && std::isfinite(out.score_sum);
  if (!out.finite) return out;

  const double mean = out.score_sum / static_cast<double>(n);
  const auto mean_f = static_cast<float>(mean);
  double dev = 0.0, dev2 = 0.0;
  SecondPass<decltype(d)> second(d, out.max_weight, out.top1, c, mean_f);
  SecondPass<decltype(d1)> second1(d1, out.max_weight, out.top1, c, mean_f);
  i = sweep(d, probs, scores, 0, n, second, [&](auto& a) { a.flush(d, out, dev, dev2); });
  sweep(d1, probs, scores, i, n, second1, [&](auto& a) { a.flush(d1, out, dev, dev2); });
  second.finish(d, out);
  second1.finish(d1, out);
  // Σ (s − mean)² from deviations about the float mean m̃: Σ (s − m̃)² − (Σ (s − m̃))² / n.
  out.score_m2 = std::max(0.0, dev2 - dev * dev / static_cast<double>(n));
  return out;
}

}  // namespace attnviz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace attnviz {

HWY_EXPORT(row_sums);

RowSums row_sums(const float* probs, const float* scores, std::size_t n, float c) {
  return HWY_DYNAMIC_DISPATCH(row_sums)(probs, scores, n, c);
}

}  // namespace attnviz
#endif  // HWY_ONCE
