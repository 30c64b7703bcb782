// Config: every hyperparameter of a model, from the file's metadata, config.json, the layout and flags.
#pragma once

#include <optional>
#include <string>

namespace attnviz {

enum class Activation { relu, gelu, gelu_tanh };  // GELU(erf) and GELU(tanh), i.e. HF's gelu_new
enum class Positional { none, sinusoidal, learned };

// The shape of the stack. mha: one attention module and nothing else (the seed modules,
// nn.MultiheadAttention). encoder: self-attention + FFN layers. decoder: causal self-attention +
// FFN (GPT), with cross-attention over a source when the layers have it (nn.TransformerDecoder).
// encoder_decoder: both stacks (nn.Transformer).
enum class Arch { mha, encoder, decoder, encoder_decoder };

struct Config {
  Arch arch = Arch::mha;
  std::string layout;         // the layout the tensors were bound with (seed000, gpt2, bert, …)
  int d_model = 0;            // width of the residual stream / of each input vector
  int n_heads = 0;            // heads; the q/k and v widths split evenly across them
  int d_qk = 0;               // total query/key width = n_heads · d_k
  int d_v = 0;                // total value width = n_heads · d_head_v
  int d_out = 0;              // width after the out projection (0 when there is none)
  int kdim = 0;               // width of the key input (nn.MultiheadAttention kdim; = d_model)
  int vdim = 0;               // width of the value input (vdim; = d_model)
  int d_ff = 0;               // hidden width of the feed-forward network
  int n_encoder_layers = 0;   // layers of the encoder stack (encoder, encoder_decoder)
  int n_decoder_layers = 0;   // layers of the decoder stack (decoder, encoder_decoder)
  bool decoder_cross = false; // decoder layers attend to a source (nn.TransformerDecoder)
  bool causal = false;        // the self-attention is always causal (decoders, seed 002)
  bool norm_first = false;    // pre-norm x + f(LN(x)); else post-norm LN(x + f(x))
  float layer_norm_eps = 1e-5f;
  Activation activation = Activation::relu;
  int vocab_size = 0;         // rows of the token embedding table (0: tokens are hash-embedded)
  int max_positions = 0;      // the longest input the model accepts (0: no limit)
  bool scale_embeddings = false;  // lut(x) · sqrt(d_model), as in the annotated transformer
  Positional positional = Positional::none;
  float pe_base = 10000.0f;   // base of the sinusoidal encoding (the paper's 10000)
  int type_vocab_size = 0;    // BERT token-type embeddings (0: none)

  int d_k() const { return d_qk / n_heads; }       // per-head query/key width
  int d_head_v() const { return d_v / n_heads; }   // per-head value width
};

const char* arch_name(Arch arch);           // "mha", "encoder", "decoder", "encoder-decoder"
std::optional<Arch> parse_arch(const std::string& name);
const char* activation_name(Activation a);  // "relu", "gelu", "gelu_tanh"
std::optional<Activation> parse_activation(const std::string& name);  // also gelu_new, gelu_pytorch_tanh
const char* positional_name(Positional p);
std::optional<Positional> parse_positional(const std::string& name);

// Hyperparameters given on the command line; each must agree with the file when the file has it.
struct ConfigOverrides {
  std::optional<int> n_heads;
  std::optional<bool> norm_first;
  std::optional<std::string> activation;
  std::optional<float> layer_norm_eps;
  std::optional<float> pe_base;
  std::string layout;       // --layout NAME (empty: detect)
  std::string layout_file;  // --layout-file map.json
};

}  // namespace attnviz
