// Patches to tokens: the patch projection as one product, prefix tokens, positions (resized as
// torch's bicubic interpolation does when the family resizes them).
#include "attnviz/compute/patch_embedding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "attnviz/compute/linear.hpp"
#include "attnviz/compute/norm.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

// Keys' cubic convolution kernel with A = −0.75 (torch's upsample_bicubic2d): the weights of the
// four source samples around a point t ∈ [0, 1) past the second.
std::array<float, 4> cubic_weights(float t) {
  constexpr float a = -0.75f;
  const auto near = [](float x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };  // |x| ≤ 1
  const auto far = [](float x) {
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  };  // 1 < |x| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// For output index o of n_out from n_in: the first of the four source indices and their weights.
std::pair<int, std::array<float, 4>> cubic_taps(int o, int n_in, int n_out) {
  const float scale = static_cast<float>(n_in) / static_cast<float>(n_out);
  const float real = scale * (static_cast<float>(o) + 0.5f) - 0.5f;  // not clamped (cubic)
  const float floor = std::floor(real);
  return {static_cast<int>(floor) - 1, cubic_weights(real - floor)};
}

int clamp_index(int i, int n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// torch's antialiased kernel (UpSampleKernel.cpp, _compute_weights_aa with aa_filter): Keys'
// kernel with A = −0.5, its support 2 widened to 2·s when shrinking by s = in/out (the kernel then
// read at (j − centre)/s), the taps inside the input kept and their weights normalised to 1.
struct AaTaps {
  int first = 0;
  std::vector<float> weights;
};

float keys_half(float x) {
  constexpr float a = -0.5f;
  x = std::abs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

AaTaps aa_taps(int o, int n_in, int n_out) {
  const float scale = static_cast<float>(n_in) / static_cast<float>(n_out);
  const float support = scale >= 1 ? 2 * scale : 2.0f;
  const float inv = scale >= 1 ? 1 / scale : 1.0f;
  const float centre = scale * (static_cast<float>(o) + 0.5f);
  AaTaps t;
  t.first = std::max(static_cast<int>(centre - support + 0.5f), 0);
  const int end = std::min(static_cast<int>(centre + support + 0.5f), n_in);
  float total = 0;
  for (int j = t.first; j < end; ++j) {
    t.weights.push_back(keys_half((static_cast<float>(j) - centre + 0.5f) * inv));
    total += t.weights.back();
  }
  if (total != 0) {
    for (float& w : t.weights) w /= total;
  }
  return t;
}

// One axis of the separable antialiased resize: `table` holds n_outer × n_in × inner rows (the
// resized axis in the middle), the result n_outer × n_out × inner.
Matrix aa_axis(const Matrix& table, int n_outer, int n_in, int inner, int n_out) {
  Matrix out = Matrix::Zero(Eigen::Index(n_outer) * n_out * inner, table.cols());
  for (int o = 0; o < n_out; ++o) {
    const AaTaps t = aa_taps(o, n_in, n_out);
    for (int a = 0; a < n_outer; ++a) {
      for (int b = 0; b < inner; ++b) {
        auto row = out.row((Eigen::Index(a) * n_out + o) * inner + b);
        for (size_t k = 0; k < t.weights.size(); ++k) {
          const Eigen::Index src = (Eigen::Index(a) * n_in + t.first + Eigen::Index(k)) * inner + b;
          row += t.weights[k] * table.row(src);
        }
      }
    }
  }
  return out;
}

}  // namespace

Matrix resize_bicubic(const Matrix& table, int grid, int rows, int cols) {
  const Eigen::Index d = table.cols();
  Matrix out = Matrix::Zero(Eigen::Index(rows) * cols, d);
  for (int r = 0; r < rows; ++r) {
    const auto [y0, wy] = cubic_taps(r, grid, rows);
    for (int c = 0; c < cols; ++c) {
      const auto [x0, wx] = cubic_taps(c, grid, cols);
      auto o = out.row(Eigen::Index(r) * cols + c);
      for (int i = 0; i < 4; ++i) {  // each source row interpolated along x, then those along y
        const int y = clamp_index(y0 + i, grid);
        RowVector across = RowVector::Zero(d);
        for (int j = 0; j < 4; ++j)
          across += wx[size_t(j)] * table.row(Eigen::Index(y) * grid + clamp_index(x0 + j, grid));
        o += wy[size_t(i)] * across;
      }
    }
  }
  return out;
}

Matrix resize_bicubic_antialiased(const Matrix& table, int grid, int rows, int cols) {
  // torch resizes the contiguous axis (columns) first, then the rows, skipping an axis whose size
  // stays (its weights would be exactly 1 and 0).
  const Matrix across = cols == grid ? table : aa_axis(table, grid, grid, 1, cols);
  return rows == grid ? across : aa_axis(across, 1, grid, cols, rows);
}

Sequence embed_pixels(const Model& model, const Tensor& pixels, const std::string& what) {
  const Config& c = model.config;
  const VisionConfig& v = c.vision;
  if (!model.weights.embed.patches || v.patch == 0)
    throw usage_error(fmt::format("{}: {} is not a vision model: it reads tokens, not an image",
                                  what, model.name));
  const PatchEmbeddingWeights& w = *model.weights.embed.patches;
  const auto& s = pixels.shape;
  if (s.size() != 3 || s[0] != v.channels) {
    throw Error(fmt::format("{}: pixels of shape {}, expected [{}, height, width] ({}'s channels)",
                            what, shape_string(s), v.channels, model.name));
  }
  const int height = static_cast<int>(s[1]), width = static_cast<int>(s[2]);
  const int rows = height / v.patch, cols = width / v.patch;
  if (rows < 1 || cols < 1) {
    throw Error(fmt::format("{}: an image of {}×{} pixels holds no {}-pixel patch", what, height,
                            width, v.patch));
  }
  const bool positions = c.positional != Positional::none;  // --no-positions leaves them out
  if (positions && v.resize_positions == PositionResize::none &&
      (rows != v.grid || cols != v.grid)) {
    throw Error(fmt::format(
        "{}: an image of {}×{} pixels gives {}×{} patches, but {}'s positions are those of its "
        "{}×{} pixels ({}×{} patches of {}), and the family does not resize them",
        what, height, width, rows, cols, model.name, v.grid * v.patch, v.grid * v.patch, v.grid,
        v.grid, v.patch));
  }
  // Each patch's pixels as one row: channel, then row, then column (the kernel's order).
  const int p = v.patch;
  const Eigen::Index n_patches = Eigen::Index(rows) * cols;
  Matrix flat(n_patches, Eigen::Index(v.channels) * p * p);
  for (int r = 0; r < rows; ++r) {
    for (int col = 0; col < cols; ++col) {
      float* out = flat.row(Eigen::Index(r) * cols + col).data();
      for (int ch = 0; ch < v.channels; ++ch) {
        for (int y = 0; y < p; ++y) {
          const float* in = pixels.data.data() +
                            (int64_t(ch) * height + int64_t(r) * p + y) * width + int64_t(col) * p;
          std::copy(in, in + p, out);
          out += p;
        }
      }
    }
  }
  const Matrix patches = linear(flat, w.patch);
  // Positions: the prefix rows, then the grid's, resized to this image's grid when it differs.
  const int positioned = (v.cls ? 1 : 0) + (v.distillation ? 1 : 0);
  const Matrix grid_positions = w.position.bottomRows(w.position.rows() - positioned);
  const Matrix patch_positions =
      !positions || (rows == v.grid && cols == v.grid) ? grid_positions
      : v.resize_positions == PositionResize::bicubic_antialiased
          ? resize_bicubic_antialiased(grid_positions, v.grid, rows, cols)
          : resize_bicubic(grid_positions, v.grid, rows, cols);
  Sequence seq;
  const Eigen::Index n = v.prefix_tokens() + n_patches;
  seq.x.resize(n, c.d_model);
  Eigen::Index at = 0;
  const auto put = [&](const RowVector& token, const std::string& label, const RowVector* pos) {
    seq.x.row(at) = token;
    if (pos && positions) seq.x.row(at) += *pos;
    seq.labels.push_back(label);
    ++at;
  };
  int position_row = 0;
  if (v.cls) {
    const RowVector pos = w.position.row(position_row++);
    put(w.cls, "CLS", &pos);
  }
  if (v.distillation) {
    const RowVector pos = w.position.row(position_row++);
    put(w.distillation, "dist", &pos);
  }
  for (int r = 0; r < v.registers; ++r) put(w.registers.row(r), fmt::format("reg{}", r), nullptr);
  seq.grid = {static_cast<int>(at), rows, cols, p};
  for (Eigen::Index i = 0; i < n_patches; ++i) {
    const RowVector pos = patch_positions.row(i);
    put(patches.row(i), fmt::format("p({},{})", i / cols, i % cols), &pos);
  }
  if (model.weights.embed.norm) seq.x = normalize(seq.x, *model.weights.embed.norm, c);
  if (height % p != 0 || width % p != 0) {
    seq.notes.push_back(fmt::format(
        "{}: {}×{} pixels are not whole {}-pixel patches: the model reads the first {}×{} (its "
        "Conv2d drops the rest)",
        what, height, width, p, rows * p, cols * p));
  }
  return seq;
}

}  // namespace attnviz
