// Highway kernels of vector_math.hpp, compiled per x86 target and chosen at run time; tails run
// the same vector code one lane at a time, so a value never depends on its position.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/core/vector_math.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// After highway.h, so it is compiled once per target too.
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// NaN and ±inf are the floats whose exponent bits are all ones: tested on the bits, so subnormal
// values (long maps are full of them) never reach a floating-point unit's slow path.
template <class D>
auto non_finite_lanes(D d, hn::Vec<D> v) {
  const hn::RebindToUnsigned<D> du;
  const auto exponent = hn::Set(du, 0x7f800000u);
  return hn::RebindMask(d, hn::Eq(hn::And(hn::BitCast(du, v), exponent), exponent));
}

bool all_finite(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  auto any = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    any = hn::Or(any, hn::VecFromMask(d, non_finite_lanes(d, hn::LoadU(d, x + i))));
  }
  if (!hn::AllFalse(d, hn::MaskFromVec(any))) return false;
  for (; i < n; ++i) {
    if (!hn::AllFalse(d1, non_finite_lanes(d1, hn::LoadU(d1, x + i)))) return false;
  }
  return true;
}

float max_finite(const float* x, size_t n, float floor) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  auto top = hn::Set(d, floor);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    top = hn::Max(top, hn::IfThenElse(non_finite_lanes(d, v), top, v));
  }
  float best = hn::GetLane(hn::MaxOfLanes(d, top));
  for (; i < n; ++i) {
    const auto v = hn::LoadU(d1, x + i);
    if (hn::AllFalse(d1, non_finite_lanes(d1, v))) best = std::max(best, hn::GetLane(v));
  }
  return best;
}

void bins_256(const float* x, size_t n, float lo, float hi, uint8_t* bins) {
  const float span = hi - lo;
  if (!(span > 0.0f) || !std::isfinite(span)) {  // an empty, inverted or unbounded range: all bin 0
    std::fill(bins, bins + n, uint8_t{0});
    return;
  }
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  // t = (x − lo) / span clamped to [0, 1], NaN → 0; bin = min(⌊256 t⌋, 255), the scalar's floats.
  const auto bin = [&](auto dd, auto v) {
    const auto t = hn::Div(hn::Sub(v, hn::Set(dd, lo)), hn::Set(dd, span));
    const auto clamped =
        hn::Min(hn::Max(hn::IfThenZeroElse(hn::IsNaN(t), t), hn::Zero(dd)), hn::Set(dd, 1.0f));
    const hn::RebindToSigned<decltype(dd)> di;
    return hn::Min(hn::ConvertTo(di, hn::Mul(clamped, hn::Set(dd, 256.0f))), hn::Set(di, 255));
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const hn::Rebind<uint8_t, decltype(d)> d8;
    hn::StoreU(hn::DemoteTo(d8, bin(d, hn::LoadU(d, x + i))), d8, bins + i);
  }
  for (; i < n; ++i) bins[i] = static_cast<uint8_t>(hn::GetLane(bin(d1, hn::LoadU(d1, x + i))));
}

uint64_t sum_abs_int8(const uint8_t* x, size_t n) {
  const hn::ScalableTag<uint8_t> du8;
  const hn::RebindToSigned<decltype(du8)> di8;
  const size_t lanes = hn::Lanes(du8);
  // |b| of a byte read as int8 is at most 128, which Abs returns as 0x80: right read unsigned.
  auto sum = hn::Zero(hn::Repartition<uint64_t, decltype(du8)>());
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    sum = hn::Add(sum,
                  hn::SumsOf8(hn::BitCast(du8, hn::Abs(hn::BitCast(di8, hn::LoadU(du8, x + i))))));
  }
  uint64_t total = hn::GetLane(hn::SumOfLanes(hn::Repartition<uint64_t, decltype(du8)>(), sum));
  for (; i < n; ++i) total += x[i] < 128 ? x[i] : 256u - x[i];
  return total;
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
HWY_EXPORT(max_finite);
HWY_EXPORT(sum_abs_int8);
HWY_EXPORT(bins_256);

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
float max_finite(const float* x, std::size_t n, float floor) {
  return HWY_DYNAMIC_DISPATCH(max_finite)(x, n, floor);
}
void bins_256(const float* x, std::size_t n, float lo, float hi, std::uint8_t* bins) {
  HWY_DYNAMIC_DISPATCH(bins_256)(x, n, lo, hi, bins);
}
std::uint64_t sum_abs_int8(const std::uint8_t* x, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(sum_abs_int8)(x, n);
}

}  // namespace attnviz
#endif  // HWY_ONCE
