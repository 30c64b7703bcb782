// Token embeddings: nn.Embedding lookup, or the deterministic hash embedding for vocabulary-free
// models.
#include "attnviz/compute/embedding.hpp"

#include <fmt/format.h>

#include <cmath>

#include "attnviz/compute/norm.hpp"
#include "attnviz/compute/positional.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/random.hpp"

namespace attnviz {

void check_length(const Model& model, size_t n, const std::string& what) {
  const int limit = model.config.max_positions;
  if (limit > 0 && n > static_cast<size_t>(limit)) {
    const std::string& origin = model.config.max_positions_origin;
    throw Error(fmt::format("{}: {} tokens, but the model accepts at most {} ({})", what, n, limit,
                            origin.empty() ? "max_positions" : origin));
  }
}

namespace {

// The file's stored table (Marian's embed_positions) is what transformers adds: its rows must be
// the computed ones, to float32 rounding, or attnviz would show another model's positions.
void check_stored_sinusoid(const Model& model, const Matrix& pe) {
  const TokenTable& stored = *model.weights.embed.sinusoid;
  const std::string& name = model.weights.embed.sinusoid_tensor;
  if (pe.rows() > stored.rows()) {
    throw Error(fmt::format("{} positions, but the stored sinusoidal table '{}' has {} rows",
                            pe.rows(), name, stored.rows()));
  }
  const Matrix rows = stored.block(0, pe.rows());
  for (Eigen::Index p = 0; p < pe.rows(); ++p) {
    for (Eigen::Index j = 0; j < pe.cols(); ++j) {
      if (std::abs(rows(p, j) - pe(p, j)) <= 1e-6f) continue;
      throw Error(fmt::format(
          "the stored sinusoidal table '{}' holds {} at position {}, column {}, where the {} "
          "sinusoid ({}) is {}: its rows are not the encoding this family computes",
          name, rows(p, j), p, j, sinusoid_layout_name(model.config.sinusoid), model.config.pe_base,
          pe(p, j)));
    }
  }
}

// The sinusoid's rows for n tokens: positions position_offset, position_offset + 1, … (Marian
// from 0); with fairseq's padding (M2M100), a token of id position_pad_id takes the zero row and
// does not count (make_positions: cumsum(id ≠ pad) · (id ≠ pad) + pad).
Matrix sinusoid_rows(const Config& c, Eigen::Index n, const std::vector<int64_t>* ids) {
  const Matrix table =
      sinusoidal_encoding(int(n), c.d_model, c.pe_base, c.sinusoid, c.position_offset);
  Matrix pe = Matrix::Zero(n, c.d_model);
  Eigen::Index next = 0;  // the table's rows are positions position_offset, position_offset + 1, …
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool pad = c.position_pad_id && ids && (*ids)[size_t(i)] == *c.position_pad_id;
    if (!pad) pe.row(i) = table.row(next++);
  }
  return pe;
}

// x = lut(ids) · sqrt(d_model)? + positions + token type 0, then the embedding LayerNorm; an
// encoder-decoder's source with its encoder's own position table and norm when it has them, its
// target with its decoder's. `ids` (null for vectors) say which tokens are fairseq's padding.
void finish_embedding(const Model& model, Matrix& x, bool source,
                      const std::vector<int64_t>* ids = nullptr) {
  const Config& c = model.config;
  const EmbeddingWeights& e = model.weights.embed;
  const StackWeights* stack = c.arch != Arch::encoder_decoder ? nullptr
                              : source                        ? &model.weights.encoder
                                                              : &model.weights.decoder;
  const auto& position = stack && stack->position ? stack->position : e.position;
  const auto& norm = stack && stack->embed_norm ? stack->embed_norm : e.norm;
  if (c.scale_embeddings) x *= std::sqrt(static_cast<float>(c.d_model));
  const auto n = x.rows();
  if (c.positional == Positional::learned && position)
    x += position->block(c.position_offset, n);  // BART's table starts at row 2
  if (c.positional == Positional::sinusoidal) {
    const Matrix pe = sinusoid_rows(c, n, ids);
    if (e.sinusoid) check_stored_sinusoid(model, pe);
    x += pe;
  }
  if (e.token_type) x.rowwise() += e.token_type->row(0);
  if (norm) x = normalize(x, *norm, c);
}

}  // namespace

RowVector hash_embedding(std::string_view token, int d_model) {
  Random rng(fnv1a_64(token));
  RowVector x(d_model);
  for (int i = 0; i < d_model; ++i) x[i] = rng.normal();
  return x;
}

namespace {

std::string hash_note(const Model& model, const char* what) {
  return fmt::format(
      "{} has no token embedding table: {} are embedded as hash vectors "
      "(x ~ N(0, 1), seeded by each token's bytes)",
      model.name, what);
}

}  // namespace

Sequence embed_hashed(const Model& model, const std::vector<std::string>& tokens) {
  check_length(model, tokens.size(), "tokens");
  const int d_model = model.config.d_model;
  Sequence seq{tokens, Matrix(static_cast<Eigen::Index>(tokens.size()), d_model), {}, {}, {}};
  for (size_t i = 0; i < tokens.size(); ++i) {
    seq.x.row(static_cast<Eigen::Index>(i)) = hash_embedding(tokens[i], d_model);
  }
  seq.notes.push_back(hash_note(model, "tokens"));
  finish_embedding(model, seq.x, false);
  return seq;
}

Sequence embed_ids(const Model& model, const std::vector<int64_t>& ids,
                   std::vector<std::string> labels, bool source) {
  check_length(model, ids.size(), "ids");
  const int d_model = model.config.d_model;
  Sequence seq{
      std::move(labels), Matrix(static_cast<Eigen::Index>(ids.size()), d_model), {}, ids, {}};
  // An encoder-decoder's stack may have a vocabulary of its own (the translation tutorial's).
  const Weights& w = model.weights;
  const StackWeights& stack = source ? w.encoder : w.decoder;
  const bool own = model.config.arch == Arch::encoder_decoder && stack.token;
  const std::optional<TokenTable>& table = own ? stack.token : w.embed.token;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = ids[i];
    const auto row = static_cast<Eigen::Index>(i);
    if (!table) {
      seq.x.row(row) = hash_embedding(fmt::format("#{}", id), d_model);
      if (i == 0) seq.notes.push_back(hash_note(model, "ids"));
      continue;
    }
    if (id >= table->rows()) {
      throw Error(fmt::format("id {} at position {} is past the {}embedding table's {} rows", id, i,
                              own ? (source ? "source's " : "target's ") : "", table->rows()));
    }
    seq.x.row(row) = table->row(id);
  }
  finish_embedding(model, seq.x, source, &ids);
  return seq;
}

Sequence embedded_input(const Model& model, Matrix x, std::vector<std::string> labels,
                        const std::string& what, int width) {
  if (x.cols() != width) {
    throw Error(fmt::format("{}: width {} (shape [{}, {}]), but the model's {} is {}", what,
                            x.cols(), x.rows(), x.cols(),
                            width == model.config.d_model ? "d_model" : "kdim", width));
  }
  if (x.rows() == 0) throw Error(fmt::format("{}: no rows", what));
  check_length(model, static_cast<size_t>(x.rows()), what);
  if (labels.empty()) {
    for (Eigen::Index i = 0; i < x.rows(); ++i) labels.push_back(std::to_string(i));
  }
  if (labels.size() != static_cast<size_t>(x.rows())) {
    throw Error(fmt::format("{}: {} rows but {} token labels", what, x.rows(), labels.size()));
  }
  return Sequence{std::move(labels), std::move(x), {}, {}, {}};
}

}  // namespace attnviz
