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
  }
  return "?";
}

std::optional<Activation> parse_activation(const std::string& name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  // HF GPT-2's "gelu_new" and "gelu_pytorch_tanh" are the tanh approximation.
  if (name == "gelu_tanh" || name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_tanh;
  return std::nullopt;
}

const char* positional_name(Positional p) {
  switch (p) {
    case Positional::none: return "none";
    case Positional::sinusoidal: return "sinusoidal";
    case Positional::learned: return "learned";
  }
  return "?";
}

std::optional<Positional> parse_positional(const std::string& name) {
  for (Positional p : {Positional::none, Positional::sinusoidal, Positional::learned}) {
    if (name == positional_name(p)) return p;
  }
  return std::nullopt;
}

}  // namespace attnviz
