// The scale searches of ggml's K-quants (ggml-quants.c: make_qx_quants, make_q3_quants,
// make_qkx2_quants). Byte-exact files need the same float operations in the same order, so every
// product and sum below is written in ggml's order; CMake builds these files with
// -ffp-contract=off so no multiply-add is fused.
#include <algorithm>
#include <cmath>

#include "gguf_quantize.hpp"

namespace attnviz::detail {
namespace {

constexpr float k_group_max_eps = 1e-15f;  // GROUP_MAX_EPS: below it a group is all zero

// The value of largest magnitude (the first one, on ties) and that magnitude.
void signed_max(int n, const float* x, float& max, float& amax) {
  max = 0;
  amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
}

int clamp_level(int l, int nmax) {
  return std::max(-nmax, std::min(nmax - 1, l));
}

}  // namespace

// Levels l in [-nmax, nmax) for x ≈ scale · l, weighted by x² (rmse_type 1, no importance
// weights): the scale of the least-squares fit, tried at 18 nudged inverse scales around -nmax/max.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int /*rmse_type = 1*/) {
  float max, amax;
  signed_max(n, x, max, amax);
  if (amax < k_group_max_eps) {
    std::fill(L, L + n, int8_t{0});
    return 0.f;
  }
  const auto fit = [&](float iscale, float& sumlx, float& suml2, bool store) {
    sumlx = 0;
    suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_level(nearest_int(iscale * x[i]), nmax);
      if (store) L[i] = static_cast<int8_t>(l + nmax);
      const float w = x[i] * x[i];
      sumlx += w * x[i] * static_cast<float>(l);
      suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
  };
  float sumlx, suml2;
  fit(static_cast<float>(-nmax) / max, sumlx, suml2, true);
  float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
    fit(iscale, sumlx, suml2, false);
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      fit(iscale, sumlx, suml2, true);
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// Q3_K's groups: levels in [-nmax, nmax) from -nmax/max, then up to five passes moving single
// levels while the x²-weighted fit improves (make_q3_quants with do_rmse).
float make_q3_quants(int n, int nmax, const float* x, int8_t* L) {
  float max, amax;
  signed_max(n, x, max, amax);
  if (amax < k_group_max_eps) {
    std::fill(L, L + n, int8_t{0});
    return 0.f;
  }
  const float iscale = static_cast<float>(-nmax) / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clamp_level(nearest_int(iscale * x[i]), nmax);
    L[i] = static_cast<int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * static_cast<float>(l);
    suml2 += w * static_cast<float>(l) * static_cast<float>(l);
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      const float li = static_cast<float>(L[i]);
      float slx = sumlx - w * x[i] * li;
      if (!(slx > 0)) continue;
      float sl2 = suml2 - w * li * li;
      const int new_l = clamp_level(nearest_int(x[i] * sl2 / slx), nmax);
      if (new_l == L[i]) continue;
      const float nl = static_cast<float>(new_l);
      slx += w * x[i] * nl;
      sl2 += w * nl * nl;
      if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
        L[i] = static_cast<int8_t>(new_l);
        sumlx = slx;
        suml2 = sl2;
        ++n_changed;
      }
    }
    if (n_changed == 0) break;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<int8_t>(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

namespace {

// Weighted error of x ≈ scale · L + min (absolute with use_mad, else squared).
float fit_error(int n, const float* x, const float* weights, const uint8_t* L, float scale,
                float min, bool use_mad) {
  float error = 0;
  for (int i = 0; i < n; ++i) {
    float diff = scale * static_cast<float>(L[i]) + min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    error += weights[i] * diff;
  }
  return error;
}

}  // namespace

// Levels in [0, nmax] with a scale and a non-positive min (x ≈ scale · l + min): the plain
// max-min grid, then nstep + 1 inverse scales around it, each refit by weighted least squares.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                       float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep,
                       bool use_mad) {
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sum_w += weights[i];
    sum_x += weights[i] * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    std::fill(L, L + n, uint8_t{0});
    *the_min = -min;
    return 0.f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  for (int i = 0; i < n; ++i) {
    L[i] = static_cast<uint8_t>(std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax));
  }
  float best_error = fit_error(n, x, weights, L, scale, min, use_mad);
  for (int is = 0; is <= nstep && nstep >= 1; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      const float fl = static_cast<float>(l);
      sum_l += w * fl;
      sum_l2 += w * fl * fl;
      sum_xl += w * fl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (!(D > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    const float cur_error = fit_error(n, x, weights, Laux, this_scale, this_min, use_mad);
    if (cur_error < best_error) {
      std::copy(Laux, Laux + n, L);
      best_error = cur_error;
      scale = this_scale;
      min = this_min;
    }
  }
  *the_min = -min;
  return scale;
}

}  // namespace attnviz::detail
