// describe_config: the one-line summary of a model's config that `inspect` prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attnviz/core/plural.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

namespace {

// "4 heads (d_k 8, d_v 8)", with ", 2 key/value heads" when heads share keys and values (GQA).
std::string describe_heads(const Config& c) {
  return fmt::format(
      "{} (d_k {}, d_v {}{})", count_of(c.n_heads, "head"), c.d_k(), c.d_head_v(),
      c.n_kv_heads != c.n_heads ? ", " + count_of(c.n_kv_heads, "key/value head") : "");
}

// "positions learned (max 64)", "positions rotary (theta 10000, 4 of 8 dims, max 64)".
std::string describe_positions(const Config& c) {
  std::vector<std::string> facts;
  if (c.positional == Positional::rotary) {
    const bool whole =
        c.rope_theta == std::floor(c.rope_theta) && c.rope_theta < 1e15f;  // 1000000, not 1e+06
    facts.push_back("theta " + (whole ? fmt::format("{}", static_cast<long long>(c.rope_theta))
                                      : fmt::format("{:g}", c.rope_theta)));
    if (c.rotary_dim != c.d_k())
      facts.push_back(fmt::format("{} of {} dims", c.rotary_dim, c.d_k()));
    if (c.rope_scaling.kind == RopeScaling::Kind::freq_factors) {
      facts.push_back("rope_freqs factors");  // GGUF's Llama 3 scaling, a divisor per frequency
    } else if (c.rope_scaling.kind != RopeScaling::Kind::none) {
      facts.push_back(
          fmt::format("{} scaling × {:g}",
                      c.rope_scaling.kind == RopeScaling::Kind::llama3 ? "llama3" : "linear",
                      c.rope_scaling.factor));
    }
    if (c.rope_local_theta > 0)
      facts.push_back(fmt::format("local theta {:g}", c.rope_local_theta));
  }
  if (c.positional == Positional::relative) {
    facts.push_back(fmt::format("{} buckets to distance {}, a bias per head", c.relative_buckets,
                                c.relative_max_distance));
  }
  if (c.max_positions) facts.push_back(fmt::format("max {}", c.max_positions));
  return fmt::format("positions {}{}", positional_name(c.positional),
                     facts.empty() ? "" : fmt::format(" ({})", fmt::join(facts, ", ")));
}

// "sliding window 4096 in layers 0, 2", "scores soft-capped at 50", "scale 0.0625": only what is
// set.
std::string describe_attention(const Config& c) {
  std::string out;
  if (!c.sliding_layers.empty()) {
    std::vector<int> layers;
    for (int l = 0; l < int(c.sliding_layers.size()); ++l) {
      if (c.sliding_layers[l]) layers.push_back(l);
    }
    out += layers.size() == c.sliding_layers.size()
               ? fmt::format(", sliding window {} in every layer", c.sliding_window)
               : fmt::format(", sliding window {} in layers {}", c.sliding_window,
                             fmt::join(layers, ", "));
  }
  if (c.attn_softcap > 0) out += fmt::format(", scores soft-capped at {:g}", c.attn_softcap);
  if (c.attn_scale) out += fmt::format(", scale {:g}", *c.attn_scale);
  if (c.scale_embeddings) out += ", embeddings × sqrt(d_model)";
  return out;
}

}  // namespace

// The facts new in the model vocabulary appear only when they are not the default, so the
// description of every LayerNorm / plain-FFN / absolute-position model reads as it always did.
std::string describe_config(const Config& c) {
  if (c.arch == Arch::mha) {  // no layers, norms or FFN: saying "post-norm, d_ff 0" would be wrong
    return fmt::format("layout {}, {}, one attention module, d_model {}, {}, {}, {}{}", c.layout,
                       arch_name(c.arch), c.d_model, describe_heads(c),
                       c.out_projection ? "out projection" : "no out projection",
                       c.causal ? "causal" : "not causal",
                       c.vocab_size ? fmt::format(", vocab {}", c.vocab_size) : "");
  }
  if (c.recurrent) {  // GRUs: no layers, norms, FFN or positions to describe
    return fmt::format(
        "layout {}, {}, a GRU encoder and a GRU decoder with additive attention (Bahdanau), "
        "hidden size {}, target vocab {}",
        c.layout, arch_name(c.arch), c.d_model, c.vocab_size);
  }
  std::string layers = c.arch == Arch::encoder_decoder
                           ? fmt::format("{} + {} layers", c.n_encoder_layers, c.n_decoder_layers)
                           : count_of(std::max(c.n_encoder_layers, c.n_decoder_layers), "layer");
  const char* qk_norm = c.qk_norm == QkNorm::none       ? ""
                        : c.qk_norm == QkNorm::per_head ? ", q/k norm"
                                                        : ", q/k norm over the projection";
  return fmt::format(
      "layout {}, {}, {}, d_model {}, {}, d_ff {}, {}{}{}, {}{}{}, eps {:g}{}, {}{}, {}, vocab "
      "{}{}{}",
      c.layout, arch_name(c.arch), layers, c.d_model, describe_heads(c), c.d_ff,
      c.norm_first ? "pre-norm" : "post-norm", c.norm == NormKind::rms_norm ? " RMSNorm" : "",
      c.parallel_residual ? ", attention and FFN in parallel" : "",
      c.experts.n_experts > 0
          ? fmt::format("{} experts, top {}{}, each ", c.experts.n_experts, c.experts.top_k,
                        c.experts.normalise_top_k ? " renormalised" : "")
          : "",
      c.ffn == FeedForwardKind::gated ? "gated " : "", activation_name(c.activation),
      c.layer_norm_eps, qk_norm, c.causal ? "causal" : "not causal",
      c.decoder_cross ? ", cross-attention" : "", describe_positions(c), c.vocab_size,
      c.tied_embeddings ? ", tied embeddings" : "", describe_attention(c));
}

}  // namespace attnviz
