// The positional encoding of a model as matrices.
#include "attnviz/compute/position_maps.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "attnviz/compute/positional.hpp"
#include "attnviz/compute/rotary.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/event/relative_bias.hpp"

namespace attnviz {

namespace {

Matrix cosine_similarity(const Matrix& rows) {
  const Eigen::MatrixXd r = rows.cast<double>();
  Eigen::VectorXd norms = r.rowwise().norm();
  Eigen::MatrixXd s = r * r.transpose();
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      const double d = norms(i) * norms(j);
      s(i, j) = d > 0 ? s(i, j) / d : std::nan("");  // a zero row has no direction
    }
  }
  return s.cast<float>();
}

}  // namespace

PositionMaps position_maps(const Model& model, int n) {
  const Config& c = model.config;
  if (n < 1) throw usage_error("positions: at least one position");
  if (n > k_max_position_maps) {
    throw usage_error(fmt::format(
        "positions: {} positions asked for; the n × n similarity is kept whole, so at most {}", n,
        k_max_position_maps));
  }
  if (c.max_positions > 0 && n > c.max_positions) {
    throw usage_error(
        fmt::format("positions: {} positions asked for, but {} has {} (max_positions)", n,
                    model.name, c.max_positions));
  }
  PositionMaps m;
  if (c.positional == Positional::sinusoidal) {
    m.kind = "sinusoidal";
    // Token k's row is p = position_offset + k (fairseq counts from pad_token_id + 1).
    m.encoding = sinusoidal_encoding(n, c.d_model, c.pe_base, c.sinusoid, c.position_offset);
    m.encoding_what =
        c.sinusoid == SinusoidLayout::fairseq
            ? fmt::format(
                  "PE(p, i) = sin(p·ω_i), PE(p, {2} + i) = cos(p·ω_i), ω_i = {0:g}^(−i/({2}−1)), "
                  "d = {1} (fairseq: sines, then cosines), token k at p = {3} + k",
                  c.pe_base, c.d_model, c.d_model / 2, c.position_offset)
        : c.sinusoid == SinusoidLayout::halves
            ? fmt::format(
                  "PE(p, i) = sin(p / {0:g}^(2i/d)), PE(p, {2} + i) = cos(p / {0:g}^(2i/d)), "
                  "d = {1} (sines, then cosines)",
                  c.pe_base, c.d_model, (c.d_model + 1) / 2)
            : fmt::format(
                  "PE(p, 2i) = sin(p / {0:g}^(2i/d)), PE(p, 2i+1) = cos(p / {0:g}^(2i/d)), d = {1}",
                  c.pe_base, c.d_model);
  } else if (const auto& table = model.weights.embed.position ? model.weights.embed.position
                                                              : model.weights.encoder.position;
             c.positional == Positional::learned && table) {
    // An encoder-decoder with a table per stack (BART) shows its encoder's.
    m.kind = "learned";
    m.encoding = table->block(c.position_offset, n);
    m.encoding_what = fmt::format(
        "the learned position table's rows{}{}, d = {}",
        model.weights.embed.position ? "" : " (the encoder's)",
        c.position_offset ? fmt::format(" from row {}", c.position_offset) : "", m.encoding.cols());
  } else if (c.rotary_dim > 0) {
    m.kind = "rotary";
    const RotaryTable t = rotary_table(n, c.rotary_dim, c.rope_theta, c.rope_scaling);
    m.encoding = t.cos;
    const char* scaled = c.rope_scaling.kind == RopeScaling::Kind::linear
                             ? ", divided by the linear rope scaling factor"
                         : c.rope_scaling.kind == RopeScaling::Kind::llama3
                             ? ", with Llama 3's frequency scaling"
                         : c.rope_scaling.kind == RopeScaling::Kind::freq_factors
                             ? ", divided by the model's freq_factors"
                             : "";
    m.encoding_what = fmt::format(
        "cos(p·θ_i), θ_i = {:g}^(−2i/{}){} (rotated pairs of q and k){}", c.rope_theta,
        c.rotary_dim, scaled,
        c.rope_local_theta > 0
            ? fmt::format(
                  "; the global layers' — sliding-window layers rotate with base {:g}, unscaled",
                  c.rope_local_theta)
            : "");
    m.dim_prefix = "θ";
    const Eigen::MatrixXd cs = t.cos.cast<double>(), sn = t.sin.cast<double>();
    m.similarity = ((cs * cs.transpose() + sn * sn.transpose()) / static_cast<double>(t.cos.cols()))
                       .cast<float>();
    m.similarity_what =
        "mean over the frequencies of cos((m − n)·θ_i): a unit query and key rotated to m and n";
    return m;
  } else if (c.positional == Positional::relative &&
             model.weights.encoder.relative_bias.size() > 0) {
    const RelativeBias bias{model.weights.encoder.relative_bias, c.relative_max_distance, true};
    const int heads = static_cast<int>(bias.table.cols());
    m.kind = "relative";
    m.encoding = Matrix(n, heads);
    for (int d = 0; d < n; ++d) {
      for (int h = 0; h < heads; ++h) m.encoding(d, h) = bias.at(h, d, 0);
    }
    m.encoding_what = fmt::format(
        "the encoder's relative position bias for a key d positions before the query (row d), "
        "per head: its bucket's value ({} buckets to distance {})",
        bias.n_buckets(), bias.max_distance);
    m.dim_prefix = "h";
    // Row i's offsets j − i from index n − 1 − i of each head's bias by offset.
    std::vector<double> mean(static_cast<size_t>(2 * n - 1), 0.0);
    for (int h = 0; h < heads; ++h) {
      const std::vector<float> b = bias.by_offset(h, n, n);
      for (size_t k = 0; k < mean.size(); ++k) mean[k] += b[k] / heads;
    }
    m.similarity = Matrix(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j)
        m.similarity(i, j) = static_cast<float>(mean[size_t(j - i + n - 1)]);
    }
    m.similarity_what =
        "mean over the heads of the bias the encoder adds to the score of query i and key j";
    return m;
  } else {
    throw usage_error(
        fmt::format("positions: {} has no positional encoding ({})", model.name,
                    c.recurrent ? "its GRUs read the tokens in order: the order is in their state"
                                : fmt::format("positional {}", positional_name(c.positional))));
  }
  if (m.dim_prefix.empty()) m.dim_prefix = "d";
  m.similarity = cosine_similarity(m.encoding);
  m.similarity_what = "cosine similarity of the two positions' vectors";
  return m;
}

}  // namespace attnviz
