// Pillow's two-pass 8-bit resampling (libImaging/Resample.c: precompute_coeffs,
// normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc / Vertical_8bpc), in its own arithmetic:
// double-precision weights, 22-bit fixed point, a half added before the shift, clip to a byte.
#include "attnviz/inputs/pillow_resample.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

constexpr int k_precision_bits = 32 - 8 - 2;

struct Filter {
  double (*weight)(double);
  double support;
};

double box_filter(double x) {
  return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;
}
double bilinear_filter(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}
double hamming_filter(double x) {
  x = std::fabs(x);
  if (x == 0.0) return 1.0;
  if (x >= 1.0) return 0.0;
  x *= std::numbers::pi;
  return std::sin(x) / x * (0.54f + 0.46f * std::cos(x));  // Pillow's float constants
}
double bicubic_filter(double x) {  // Keys' kernel with a = −0.5 (torch's is −0.75)
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}
double sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= std::numbers::pi;
  return std::sin(x) / x;
}
double lanczos_filter(double x) {
  return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0;
}

Filter filter_of(Resample r) {
  switch (r) {
    case Resample::box:
      return {box_filter, 0.5};
    case Resample::bilinear:
      return {bilinear_filter, 1.0};
    case Resample::hamming:
      return {hamming_filter, 1.0};
    case Resample::bicubic:
      return {bicubic_filter, 2.0};
    case Resample::lanczos:
      return {lanczos_filter, 3.0};
    case Resample::nearest:
      break;
  }
  throw Error("Pillow resizes nearest-neighbour by another path, which attnviz does not reproduce");
}

// For each output index: the first input index, how many follow, and their fixed-point weights.
struct Taps {
  std::vector<int> first, count;
  std::vector<int32_t> weights;  // count of output × kernel size
  int size = 0;
};

Taps precompute(int in_size, int out_size, const Filter& f) {
  const double scale = static_cast<double>(float(in_size) - 0.0f) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = f.support * filterscale;
  Taps t;
  t.size = static_cast<int>(std::ceil(support)) * 2 + 1;
  t.first.resize(size_t(out_size));
  t.count.resize(size_t(out_size));
  t.weights.assign(size_t(out_size) * size_t(t.size), 0);
  std::vector<double> k(size_t(t.size));
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      k[size_t(x)] = f.weight((x + xmin - center + 0.5) * ss);
      ww += k[size_t(x)];
    }
    for (int x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[size_t(x)] / ww : k[size_t(x)];
      t.weights[size_t(xx) * size_t(t.size) + size_t(x)] = static_cast<int32_t>(
          w < 0 ? -0.5 + w * (1 << k_precision_bits) : 0.5 + w * (1 << k_precision_bits));
    }
    t.first[size_t(xx)] = xmin;
    t.count[size_t(xx)] = xmax;
  }
  return t;
}

uint8_t clip8(int32_t sum) {
  const int32_t v =
      sum >> k_precision_bits;  // arithmetic: a negative sum floors, as Pillow's table
  return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
}

RgbImage horizontal(const RgbImage& in, int width, const Filter& f) {
  const Taps t = precompute(in.width, width, f);
  RgbImage out{width, in.height, std::vector<uint8_t>(size_t(width) * size_t(in.height) * 3),
               in.source_mode};
  for (int y = 0; y < in.height; ++y) {
    for (int xx = 0; xx < width; ++xx) {
      const int32_t* k = &t.weights[size_t(xx) * size_t(t.size)];
      for (int c = 0; c < 3; ++c) {
        int32_t ss = 1 << (k_precision_bits - 1);
        for (int x = 0; x < t.count[size_t(xx)]; ++x)
          ss += in.at(y, x + t.first[size_t(xx)], c) * k[x];
        out.rgb[(size_t(y) * size_t(width) + size_t(xx)) * 3 + size_t(c)] = clip8(ss);
      }
    }
  }
  return out;
}

RgbImage vertical(const RgbImage& in, int height, const Filter& f) {
  const Taps t = precompute(in.height, height, f);
  RgbImage out{in.width, height, std::vector<uint8_t>(size_t(in.width) * size_t(height) * 3),
               in.source_mode};
  for (int yy = 0; yy < height; ++yy) {
    const int32_t* k = &t.weights[size_t(yy) * size_t(t.size)];
    for (int x = 0; x < in.width; ++x) {
      for (int c = 0; c < 3; ++c) {
        int32_t ss = 1 << (k_precision_bits - 1);
        for (int y = 0; y < t.count[size_t(yy)]; ++y)
          ss += in.at(y + t.first[size_t(yy)], x, c) * k[y];
        out.rgb[(size_t(yy) * size_t(in.width) + size_t(x)) * 3 + size_t(c)] = clip8(ss);
      }
    }
  }
  return out;
}

}  // namespace

std::optional<Resample> resample_of(int pil_number) {
  if (pil_number < 0 || pil_number > 5) return std::nullopt;
  return static_cast<Resample>(pil_number);
}

const char* resample_name(Resample r) {
  switch (r) {
    case Resample::nearest:
      return "nearest";
    case Resample::lanczos:
      return "lanczos";
    case Resample::bilinear:
      return "bilinear";
    case Resample::bicubic:
      return "bicubic";
    case Resample::box:
      return "box";
    case Resample::hamming:
      return "hamming";
  }
  return "?";
}

RgbImage pillow_resize(const RgbImage& image, int width, int height, Resample filter) {
  if (width < 1 || height < 1)
    throw Error(fmt::format("resize to {}×{} pixels: expected at least 1×1", width, height));
  if (width == image.width && height == image.height) return image;  // Pillow copies it
  const Filter f = filter_of(filter);
  const RgbImage across = width != image.width ? horizontal(image, width, f) : image;
  return height != image.height ? vertical(across, height, f) : across;
}

}  // namespace attnviz
