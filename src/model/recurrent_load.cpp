// The translation tutorial's GRUs and Bahdanau attention, bound by role (see recurrent_load.hpp).
#include "recurrent_load.hpp"

#include <fmt/format.h>

#include "attention_config.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/core/unicode.hpp"
#include "derive_shapes.hpp"
#include "load_checks.hpp"

namespace attnviz::detail {

namespace {

// A [rows, cols] weight as a float matrix (the model is small: nothing stays mapped).
Matrix matrix_of(const Binder& b, const std::string& role, int64_t rows, int64_t cols) {
  b.present(role);  // required: a missing tensor is an Error naming it
  return b.weight(role, 0, rows, cols).matrix();
}

RowVector vector_of(const Binder& b, const std::string& role, int64_t n) {
  b.present(role);
  return b.vector(role, 0, n);
}

// nn.GRU(input, hidden)'s layer 0.
GruWeights bind_gru(const Binder& b, const std::string& stack, int input, int hidden) {
  const std::string m = stack + ".gru.";
  return GruWeights{matrix_of(b, m + "weight_ih", 3 * int64_t(hidden), input),
                    matrix_of(b, m + "weight_hh", 3 * int64_t(hidden), hidden),
                    vector_of(b, m + "bias_ih", 3 * int64_t(hidden)),
                    vector_of(b, m + "bias_hh", 3 * int64_t(hidden))};
}

// BahdanauAttention(hidden): Wa, Ua [H, H], Va [1, H], each with its bias.
AdditiveAttentionWeights bind_attention(const Binder& b, int hidden) {
  AdditiveAttentionWeights a;
  a.wa = matrix_of(b, "decoder.cross.wa.weight", hidden, hidden);
  a.ba = vector_of(b, "decoder.cross.wa.bias", hidden);
  a.ua = matrix_of(b, "decoder.cross.ua.weight", hidden, hidden);
  a.bu = vector_of(b, "decoder.cross.ua.bias", hidden);
  a.va = matrix_of(b, "decoder.cross.va.weight", 1, hidden).row(0);
  a.bv = vector_of(b, "decoder.cross.va.bias", 1)[0];
  return a;
}

// A token table's rows (its vocabulary), its width checked against the hidden size.
int table_rows(const Binder& b, const std::string& role, int hidden) {
  b.present(role);
  if (width(b, role, 1) != hidden) {
    throw Error(fmt::format("{}, expected [vocabulary, {}] (the hidden size, from {})",
                            b.tensor_text(role), hidden, b.tensor_text("encoder.embed.token")));
  }
  return width(b, role, 0);
}

}  // namespace

void load_recurrent(Model& model, const std::shared_ptr<const TensorSource>& tensors,
                    const Binder& b, const ConfigSources& cfg, const Layout& layout,
                    const std::string& prefix, const ConfigOverrides& flags) {
  for (const auto& [set, flag] : {std::pair{flags.n_heads.has_value(), "--heads"},
                                  std::pair{flags.norm_first.has_value(), "--norm-first"},
                                  std::pair{flags.activation.has_value(), "--activation"},
                                  std::pair{flags.layer_norm_eps.has_value(), "--layer-norm-eps"},
                                  std::pair{flags.pe_base.has_value(), "--pe-base"}}) {
    if (set) {
      throw usage_error(fmt::format(
          "{}: {} is a GRU encoder-decoder with additive attention (layout {}): it has no heads, "
          "norms, feed-forward layers or positional encoding for the flag to set",
          flag, model.name, layout.name));
    }
  }
  Config& c = model.config;
  c.recurrent = true;
  c.decoder_cross = true;
  c.n_encoder_layers = c.n_decoder_layers = 1;
  b.present("encoder.embed.token");
  const int hidden = width(b, "encoder.embed.token", 1);
  c.d_model = c.kdim = c.vdim = c.d_qk = c.d_v = hidden;
  c.n_heads = c.n_kv_heads = 1;
  const int source_vocab = table_rows(b, "encoder.embed.token", hidden);
  c.vocab_size = table_rows(b, "decoder.embed.token", hidden);
  check_declared(cfg, {"hidden_size"}, hidden,
                 fmt::format("the hidden size, from {}", b.tensor_text("encoder.embed.token")));
  check_declared(
      cfg, {"source_vocab_size"}, source_vocab,
      fmt::format("the source vocabulary, from {}", b.tensor_text("encoder.embed.token")));
  check_declared(
      cfg, {"target_vocab_size"}, c.vocab_size,
      fmt::format("the target vocabulary, from {}", b.tensor_text("decoder.embed.token")));
  refuse_unsupported_fields(cfg, layout);
  if (auto id = cfg.integer({"decoder_start_token_id"}, 0)) {
    if (*id >= c.vocab_size) {
      throw cfg.declared({"decoder_start_token_id"})
          ->error(fmt::format("{}: expected an id of the target vocabulary (below {})",
                              cfg.declared({"decoder_start_token_id"})->origin, c.vocab_size));
    }
    c.decoder_start_id = *id;
  }

  Weights& w = model.weights;
  w.encoder.token = b.table("encoder.embed.token", source_vocab, hidden, tensors);
  w.embed.token = b.table("decoder.embed.token", c.vocab_size, hidden, tensors);
  w.decoder.token = w.embed.token;
  b.present("unembed.weight");
  if (b.shape("unembed.weight") != std::vector<int64_t>{c.vocab_size, hidden}) {
    throw Error(fmt::format("{}, expected [{}, {}] (the target vocabulary, the hidden size)",
                            b.tensor_text("unembed.weight"), c.vocab_size, hidden));
  }
  w.embed.unembed = b.table("unembed.weight", c.vocab_size, hidden, tensors);
  w.embed.unembed_bias = vector_of(b, "unembed.bias", c.vocab_size);
  w.recurrent = RecurrentWeights{bind_gru(b, "encoder", hidden, hidden), bind_attention(b, hidden),
                                 bind_gru(b, "decoder", 2 * hidden, hidden)};
  check_every_tensor_bound(*tensors, layout, prefix, 1, 0);
}

}  // namespace attnviz::detail
