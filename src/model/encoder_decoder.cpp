// An encoder-decoder's own parts of loading (see encoder_decoder.hpp).
#include "encoder_decoder.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/core/unicode.hpp"
#include "derive_shapes.hpp"

namespace attnviz::detail {

namespace {

// A value the model cannot run with: the error names where it was declared (exit 2 for a flag's),
// or the family's default that gave it.
[[noreturn]] void refuse_value(const ConfigSources& cfg, const std::string& key, int64_t value,
                               const std::string& why) {
  if (const auto d = cfg.declared({key})) throw d->error(fmt::format("{}: {}", d->origin, why));
  throw Error(fmt::format("{} = {}: {}", key, value, why));
}

}  // namespace

// T5's relative position buckets: relative_attention_num_buckets and _max_distance, T5Config's 32
// and 128 where the config is silent (a layout file's relative positions too). The encoder's exact
// range is a quarter of the buckets, the decoder's half: both must be at least 1 and end before the
// maximum distance.
void derive_relative_buckets(Config& c, const ConfigSources& cfg) {
  if (c.positional != Positional::relative) return;
  const std::vector<std::string> buckets{"relative_attention_num_buckets"},
      distance{"relative_attention_max_distance"};
  c.relative_buckets = cfg.integer(buckets, 4).value_or(32);
  c.relative_max_distance = cfg.integer(distance).value_or(128);
  if (c.relative_max_distance <= c.relative_buckets / 2) {
    refuse_value(cfg, distance.front(), c.relative_max_distance,
                 fmt::format("expected more than half of relative_attention_num_buckets = {} (the "
                             "decoder's exact offsets end there; the logarithmic buckets reach "
                             "from it to the maximum distance)",
                             c.relative_buckets));
  }
}

// T5's relative position bias: each stack's table [buckets, heads] in its layer 0, when the
// positions are relative, and only then.
void bind_relative_bias(const Config& c, Weights& w, const Binder& b) {
  for (auto [stack, weights] :
       {std::pair{"encoder", &w.encoder}, std::pair{"decoder", &w.decoder}}) {
    const std::string role = std::string(stack) + ".self.relative_bias";
    const bool has_stack =
        std::string(stack) == "encoder" ? c.n_encoder_layers > 0 : c.n_decoder_layers > 0;
    if (!b.present(role)) {
      if (c.positional == Positional::relative && has_stack) {
        throw Error(
            fmt::format("layout {} has relative positions, but the {} has no bias table ({})",
                        c.layout, stack, b.missing(role, 0)));
      }
      continue;
    }
    if (c.positional != Positional::relative) {
      throw Error(fmt::format("tensor '{}' is a relative position bias, but the positions are {}",
                              printable_text(*b.name(role)), positional_name(c.positional)));
    }
    const auto shape = b.shape(role);
    if (shape != std::vector<int64_t>{c.relative_buckets, c.n_heads}) {
      throw Error(fmt::format(
          "tensor '{}' has shape {}, expected [{}, {}] (relative_attention_num_buckets, heads)",
          printable_text(*b.name(role)), shape_string(shape), c.relative_buckets, c.n_heads));
    }
    weights->relative_bias =
        b.table(role, c.relative_buckets, c.n_heads, nullptr)->block(0, c.relative_buckets);
  }
}

// final_logits_bias (Marian): [N] or, as transformers registers the buffer, [1, N]; empty when
// the file has none.
RowVector bind_logit_bias(const Config& c, const Binder& b) {
  const auto name = b.name("unembed.bias");
  if (!name) return {};
  const auto shape = b.shape("unembed.bias");
  const bool fits =
      shape == std::vector<int64_t>{c.vocab_size} || shape == std::vector<int64_t>{1, c.vocab_size};
  if (!fits || c.vocab_size == 0) {
    throw Error(fmt::format("tensor '{}' has shape {}, expected [{}] or [1, {}] (vocab)",
                            printable_text(*name), shape_string(shape), c.vocab_size,
                            c.vocab_size));
  }
  if (shape.size() == 1) return b.vector("unembed.bias", 0, c.vocab_size);
  return b.table("unembed.bias", 1, c.vocab_size, nullptr)->row(0);
}

// An encoder-decoder's layer counts, as T5 (num_layers, num_decoder_layers) and BART / Marian
// (encoder_layers, decoder_layers) declare them, and the id its decoder starts from.
void check_encoder_decoder(Config& c, const ConfigSources& cfg) {
  check_declared(cfg, {"encoder_layers", "num_layers"}, c.n_encoder_layers,
                 fmt::format("encoder layers: the file's tensors stop after layer {}",
                             c.n_encoder_layers - 1));
  check_declared(cfg, {"decoder_layers", "num_decoder_layers"}, c.n_decoder_layers,
                 fmt::format("decoder layers: the file's tensors stop after layer {}",
                             c.n_decoder_layers - 1));
  if (auto id = cfg.integer({"decoder_start_token_id"}, 0)) c.decoder_start_id = *id;
}

// fairseq's make_positions (M2M100, NLLB): positions from pad_token_id + 1, a padding token at the
// zero row.
void derive_fairseq_positions(Config& c, const ConfigSources& cfg) {
  c.position_pad_id = cfg.integer({"pad_token_id"}, 0).value_or(1);
  if (*c.position_pad_id >= c.vocab_size) {
    refuse_value(cfg, "pad_token_id", *c.position_pad_id,
                 fmt::format("expected an id below the vocabulary's {} (positions count from it)",
                             c.vocab_size));
  }
  c.position_offset = static_cast<int>(*c.position_pad_id) + 1;
}

}  // namespace attnviz::detail
