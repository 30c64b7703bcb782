// Names of the config enums, as they appear in config.json, flags and `inspect`.
#include "attnviz/model/config.hpp"

namespace attnviz {

const char* arch_name(Arch arch) {
  switch (arch) {
    case Arch::mha: return "mha";
    case Arch::encoder: return "encoder";
    case Arch::decoder: return "decoder";
    case Arch::encoder_decoder: return "encoder-decoder";
  }
  return "?";
}

std::optional<Arch> parse_arch(const std::string& name) {
  for (Arch a : {Arch::mha, Arch::encoder, Arch::decoder, Arch::encoder_decoder}) {
    if (name == arch_name(a)) return a;
  }
  return std::nullopt;
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::silu: return "silu";
  }
  return "?";
}

std::optional<Activation> parse_activation(const std::string& name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  // HF GPT-2's "gelu_new" and "gelu_pytorch_tanh" are the tanh approximation.
  if (name == "gelu_tanh" || name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_tanh;
  if (name == "silu" || name == "swish") return Activation::silu;  // HF's ACT2FN: swish is SiLU
  return std::nullopt;
}

const char* positional_name(Positional p) {
  switch (p) {
    case Positional::none: return "none";
    case Positional::sinusoidal: return "sinusoidal";
    case Positional::learned: return "learned";
    case Positional::rotary: return "rotary";
  }
  return "?";
}

std::optional<Positional> parse_positional(const std::string& name) {
  for (Positional p : {Positional::none, Positional::sinusoidal, Positional::learned, Positional::rotary}) {
    if (name == positional_name(p)) return p;
  }
  return std::nullopt;
}

const char* norm_name(NormKind n) {
  switch (n) {
    case NormKind::layer_norm: return "layer_norm";
    case NormKind::rms_norm: return "rms_norm";
  }
  return "?";
}

std::optional<NormKind> parse_norm(const std::string& name) {
  for (NormKind n : {NormKind::layer_norm, NormKind::rms_norm}) {
    if (name == norm_name(n)) return n;
  }
  return std::nullopt;
}

const char* feed_forward_name(FeedForwardKind f) {
  switch (f) {
    case FeedForwardKind::plain: return "plain";
    case FeedForwardKind::gated: return "gated";
  }
  return "?";
}

std::optional<FeedForwardKind> parse_feed_forward(const std::string& name) {
  for (FeedForwardKind f : {FeedForwardKind::plain, FeedForwardKind::gated}) {
    if (name == feed_forward_name(f)) return f;
  }
  return std::nullopt;
}

}  // namespace attnviz
