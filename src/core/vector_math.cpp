// Highway kernels of vector_math.hpp, compiled per x86 target and chosen at run time; tails run
// the same vector code one lane at a time, so a value never depends on its position.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/core/vector_math.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// After highway.h, so it is compiled once per target too.
#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace attnviz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// exp(x − shift), 0 below ln(FLT_MIN): Highway's Exp returns subnormals down to −104.
template <class D, class V>
V exp_or_zero(D d, V x, V shift) {
  const V t = hn::Sub(x, shift);
  const auto underflow = hn::Lt(t, hn::Set(d, -87.336544750553f));  // ln(FLT_MIN); −inf too
  return hn::IfThenZeroElse(underflow, hn::Exp(d, hn::IfThenZeroElse(underflow, t)));
}

float max_of(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  auto best = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto nan = hn::Zero(d);  // x86 max returns an operand, not NaN: NaN lanes are tracked apart
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    best = hn::Max(best, v);
    nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
  }
  float m = hn::GetLane(hn::MaxOfLanes(d, best));
  bool any_nan = !hn::AllFalse(d, hn::MaskFromVec(nan));
  for (; i < n; ++i) {
    any_nan |= std::isnan(x[i]);
    m = x[i] > m ? x[i] : m;
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : m;
}

float exp_shifted(const float* x, float* y, size_t n, float shift) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  auto sum = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto e = exp_or_zero(d, hn::LoadU(d, x + i), hn::Set(d, shift));
    hn::StoreU(e, d, y + i);
    sum = hn::Add(sum, e);
  }
  float total = hn::GetLane(hn::SumOfLanes(d, sum));
  for (; i < n; ++i) {
    const auto e = exp_or_zero(d1, hn::LoadU(d1, x + i), hn::Set(d1, shift));
    hn::StoreU(e, d1, y + i);
    total += hn::GetLane(e);
  }
  return total;
}

void scale_in_place(float* x, size_t n, float factor) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, x + i), hn::Set(d, factor)), d, x + i);
  for (; i < n; ++i) x[i] *= factor;
}

bool all_finite(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  // Σ 0·x_i is 0 when every x_i is finite and NaN otherwise (0·±inf = NaN): one add per vector.
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) acc = hn::MulAdd(hn::LoadU(d, x + i), hn::Zero(d), acc);
  if (!hn::AllFalse(d, hn::IsNaN(acc))) return false;
  for (; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
}

template <class D, class V>
V gelu_tanh(D d, V x) {
  const V c = hn::Set(d, 0.7978845608028654f);  // √(2/π)
  const V inner = hn::Mul(c, hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(x, x)), x, x));
  const V y = hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(hn::Set(d, 1.0f), hn::Tanh(d, inner)));
  return hn::IfThenElse(hn::IsNaN(x), x, y);  // Highway's Tanh does not promise NaN for NaN
}

void gelu_tanh_in_place(float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(gelu_tanh(d, hn::LoadU(d, x + i)), d, x + i);
  for (; i < n; ++i) hn::StoreU(gelu_tanh(d1, hn::LoadU(d1, x + i)), d1, x + i);
}

}  // namespace attnviz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "attnviz/core/vector_math.hpp"

namespace attnviz {

HWY_EXPORT(max_of);
HWY_EXPORT(exp_shifted);
HWY_EXPORT(scale_in_place);
HWY_EXPORT(all_finite);
HWY_EXPORT(gelu_tanh_in_place);

float max_of(const float* x, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(max_of)(x, n);
}
float exp_shifted(const float* x, float* y, std::size_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(exp_shifted)(x, y, n, shift);
}
void scale_in_place(float* x, std::size_t n, float factor) {
  HWY_DYNAMIC_DISPATCH(scale_in_place)(x, n, factor);
}
bool all_finite(const float* x, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(all_finite)(x, n);
}
void gelu_tanh_in_place(float* x, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(gelu_tanh_in_place)(x, n);
}

}  // namespace attnviz
#endif  // HWY_ONCE
