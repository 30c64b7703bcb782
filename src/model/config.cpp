// Names of the config enums, as they appear in config.json, flags and `inspect`.
#include "attnviz/model/config.hpp"

namespace attnviz {

namespace {

// The value among `all` whose name is `name`.
template <typename T, size_t N>
std::optional<T> by_name(const std::string& name, const T (&all)[N], const char* (*name_of)(T)) {
  for (T v : all) {
    if (name == name_of(v)) return v;
  }
  return std::nullopt;
}

}  // namespace

const char* arch_name(Arch arch) {
  switch (arch) {
    case Arch::mha:
      return "mha";
    case Arch::encoder:
      return "encoder";
    case Arch::decoder:
      return "decoder";
    case Arch::encoder_decoder:
      return "encoder-decoder";
  }
  return "?";
}

std::optional<Arch> parse_arch(const std::string& name) {
  static const Arch k_all[] = {Arch::mha, Arch::encoder, Arch::decoder, Arch::encoder_decoder};
  return by_name(name, k_all, arch_name);
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu:
      return "relu";
    case Activation::gelu:
      return "gelu";
    case Activation::gelu_tanh:
      return "gelu_tanh";
    case Activation::silu:
      return "silu";
    case Activation::quick_gelu:
      return "quick_gelu";
  }
  return "?";
}

std::optional<Activation> parse_activation(const std::string& name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  // HF GPT-2's "gelu_new" and "gelu_pytorch_tanh" are the tanh approximation.
  if (name == "gelu_tanh" || name == "gelu_new" || name == "gelu_pytorch_tanh")
    return Activation::gelu_tanh;
  if (name == "silu" || name == "swish") return Activation::silu;  // HF's ACT2FN: swish is SiLU
  if (name == "quick_gelu") return Activation::quick_gelu;         // CLIP's x·σ(1.702·x)
  return std::nullopt;
}

const char* positional_name(Positional p) {
  switch (p) {
    case Positional::none:
      return "none";
    case Positional::sinusoidal:
      return "sinusoidal";
    case Positional::learned:
      return "learned";
    case Positional::rotary:
      return "rotary";
    case Positional::relative:
      return "relative";
  }
  return "?";
}

std::optional<Positional> parse_positional(const std::string& name) {
  static const Positional k_all[] = {Positional::none, Positional::sinusoidal, Positional::learned,
                                     Positional::rotary, Positional::relative};
  return by_name(name, k_all, positional_name);
}

const char* sinusoid_layout_name(SinusoidLayout s) {
  switch (s) {
    case SinusoidLayout::interleaved:
      return "interleaved";
    case SinusoidLayout::halves:
      return "halves";
    case SinusoidLayout::fairseq:
      return "fairseq";
  }
  return "?";
}

std::optional<SinusoidLayout> parse_sinusoid_layout(const std::string& name) {
  static const SinusoidLayout k_all[] = {SinusoidLayout::interleaved, SinusoidLayout::halves,
                                         SinusoidLayout::fairseq};
  return by_name(name, k_all, sinusoid_layout_name);
}

const char* norm_name(NormKind n) {
  switch (n) {
    case NormKind::layer_norm:
      return "layer_norm";
    case NormKind::rms_norm:
      return "rms_norm";
  }
  return "?";
}

std::optional<NormKind> parse_norm(const std::string& name) {
  static const NormKind k_all[] = {NormKind::layer_norm, NormKind::rms_norm};
  return by_name(name, k_all, norm_name);
}

const char* feed_forward_name(FeedForwardKind f) {
  switch (f) {
    case FeedForwardKind::plain:
      return "plain";
    case FeedForwardKind::gated:
      return "gated";
  }
  return "?";
}

std::optional<FeedForwardKind> parse_feed_forward(const std::string& name) {
  static const FeedForwardKind k_all[] = {FeedForwardKind::plain, FeedForwardKind::gated};
  return by_name(name, k_all, feed_forward_name);
}

const char* qk_norm_name(QkNorm n) {
  switch (n) {
    case QkNorm::none:
      return "none";
    case QkNorm::per_head:
      return "per_head";
    case QkNorm::whole:
      return "whole";
  }
  return "?";
}

std::optional<QkNorm> parse_qk_norm(const std::string& name) {
  static const QkNorm k_all[] = {QkNorm::none, QkNorm::per_head, QkNorm::whole};
  return by_name(name, k_all, qk_norm_name);
}

}  // namespace attnviz
