// Config: every hyperparameter of a model, from the file's metadata, config.json, the layout and
// flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnviz {

enum class Activation {
  relu,
  gelu,
  gelu_tanh,
  silu,
  quick_gelu
};  // GELU(erf), GELU(tanh) = HF's gelu_new, SiLU = x·σ(x), quick GELU = x·σ(1.702·x) (CLIP)
// none; added to the embeddings (sinusoidal, learned); or rotary: q and k of self-attention rotated
// per head by their token index (Su et al. 2021, as Hugging Face's Llama applies it).
// relative: T5's learned bias per head on each score, by the bucket of the key's offset from the
// query (Raffel et al. 2020, §2.1); nothing is added to the embeddings.
enum class Positional { none, sinusoidal, learned, rotary, relative };
// How a sinusoidal table lays out its d columns, with ω_i = base^(−2i/d) for i < d/2:
// interleaved PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i) (Vaswani et al. 2017, PyTorch's
// tutorials); halves PE(p, i) = sin(p·ω_i), PE(p, ⌈d/2⌉ + i) = cos(p·ω_i) (Marian); fairseq as
// halves with ω_i = base^(−i/(h−1)), h = ⌊d/2⌋, and a zero last column when d is odd (fairseq's
// SinusoidalPositionalEmbedding, M2M100 and NLLB).
enum class SinusoidLayout { interleaved, halves, fairseq };
enum class NormKind {
  layer_norm,
  rms_norm
};  // LayerNorm (Ba et al. 2016) or RMSNorm (Zhang & Sennrich 2019)
// plain: down(act(up(x))); gated: down(act(gate(x)) ⊙ up(x)) (GLU variants, Shazeer 2020: SwiGLU
// with silu).
enum class FeedForwardKind { plain, gated };
// RMSNorm of q and k before rotary: none; per head, one gain [d_k] shared by every head (Qwen3,
// Gemma 3); or over the whole projection, gains [n_heads · d_k] and [n_kv_heads · d_k] (OLMo 2).
enum class QkNorm { none, per_head, whole };

// A mixture of experts in the FFN slot (Mixtral, Qwen3-MoE): each token runs the top_k of
// n_experts FFNs its router scores highest, their outputs weighted by the router's softmax (over
// the chosen ones again when normalise_top_k). n_experts 0: one dense FFN.
struct MixtureOfExperts {
  int n_experts = 0;
  int top_k = 0;
  bool normalise_top_k = true;
};

// The shape of the stack. mha: one attention module and nothing else (the qkv-linears,
// annotated-transformer and fused-qkv layouts, nn.MultiheadAttention). encoder: self-attention +
// FFN layers. decoder: causal self-attention + FFN (GPT), with cross-attention over a source when
// the layers have it (nn.TransformerDecoder). encoder_decoder: both stacks (nn.Transformer).
enum class Arch { mha, encoder, decoder, encoder_decoder };

// Rotary frequencies stretched for longer contexts (HF's rope_scaling / rope_parameters):
// linear divides every frequency by `factor` (Chen et al. 2023, position interpolation); llama3
// divides the low frequencies by `factor`, keeps the high ones and blends those between
// (Llama 3.1); freq_factors divides frequency i by freq_factors[i] (llama.cpp's rope_freqs tensor,
// which its converter computes from the llama3 settings).
struct RopeScaling {
  enum class Kind { none, linear, llama3, freq_factors } kind = Kind::none;
  float factor = 1.0f;
  float low_freq_factor = 1.0f;   // llama3: wavelengths above original / low_freq_factor are scaled
  float high_freq_factor = 4.0f;  // llama3: wavelengths below original / high_freq_factor are kept
  int original_max_positions = 0;   // llama3: original_max_position_embeddings
  std::vector<float> freq_factors;  // freq_factors: one divisor per rotary pair
};

// A vision transformer's input (Dosovitskiy et al. 2021): an image of `channels` planes cut into
// patch × patch squares, each flattened and mapped to d_model by one linear map (the Conv2d of
// kernel and stride `patch`), row by row; before them the prefix tokens a family adds — a class
// token (ViT), a distillation token (DeiT), register tokens (DINOv2 with registers, which take no
// position) — and the learned positions of a `grid` × `grid` pretraining grid added.
// torch's F.interpolate(mode="bicubic", align_corners=False), as a family's transformers code calls
// it on the position table: Keys' kernel with A = −0.75 on four samples (DINOv2), or with
// antialias=True: A = −0.5 over a window widened by the shrink factor (DINOv2 with registers).
enum class PositionResize { none, bicubic, bicubic_antialiased };

struct VisionConfig {
  int patch = 0;     // the patch side in pixels; 0: not a vision model
  int channels = 0;  // the image's planes (3: RGB)
  int grid = 0;      // the position table's grid side (image_size / patch when it was trained)
  bool cls = false;  // a class token first (CLS)
  bool distillation = false;  // a distillation token after it (DeiT)
  int registers = 0;          // register tokens after the class token, without positions
  // How the patch positions are resized to the image's grid when it differs; none: an image must
  // give the pretraining grid.
  PositionResize resize_positions = PositionResize::none;
  // Tokens before the patches (class, distillation, registers).
  int prefix_tokens() const { return (cls ? 1 : 0) + (distillation ? 1 : 0) + registers; }
};

struct Config {
  Arch arch = Arch::mha;
  std::string layout;  // the layout the tensors were bound with (qkv-linears, gpt2, bert, …)
  int d_model = 0;     // width of the residual stream / of each input vector
  int n_heads = 0;     // query heads; the q and merged-value widths split evenly across them
  int n_kv_heads =
      0;  // key/value heads (= n_heads, or fewer: GQA/MQA, each serving n_heads / n_kv_heads)
  int d_qk = 0;  // total query/key width = n_heads · d_k
  int d_v = 0;   // total value width of the merged heads = n_heads · d_head_v
  bool out_projection =
      false;               // the attention has W_O (qkv-linears without `out` and fused-qkv do not)
  bool fused_qkv = false;  // the self-attention's q, k, v are one Linear's rows (fused-qkv's attn,
                           // c_attn, in_proj)
  int kdim = 0;            // width of the key input (nn.MultiheadAttention kdim; = d_model)
  int vdim = 0;            // width of the value input (vdim; = d_model)
  int d_ff = 0;            // hidden width of the feed-forward network
  int n_encoder_layers = 0;    // layers of the encoder stack (encoder, encoder_decoder)
  int n_decoder_layers = 0;    // layers of the decoder stack (decoder, encoder_decoder)
  bool decoder_cross = false;  // decoder layers attend to a source (nn.TransformerDecoder)
  bool causal = false;         // the self-attention is always causal (decoders, fused-qkv)
  bool norm_first = false;     // pre-norm x + f(LN(x)); else post-norm LN(x + f(x))
  NormKind norm = NormKind::layer_norm;
  float layer_norm_eps =
      1e-5f;  // eps of every norm of the model (HF layer_norm_eps / rms_norm_eps)
  FeedForwardKind ffn = FeedForwardKind::plain;
  Activation activation = Activation::relu;
  QkNorm qk_norm = QkNorm::none;  // q and k RMS-normalised before rotary (q_norm / k_norm)
  // Attention and FFN read the same layer input: x + Attn(Norm(x)) + FFN(Norm'(x)) (GPT-NeoX's
  // use_parallel_residual, GPT-J, Phi-2; Norm' is the FFN's norm, or Norm when the layer has one).
  bool parallel_residual = false;
  MixtureOfExperts experts;  // the FFN slot's experts (n_experts 0: a dense FFN); width d_ff each
  int vocab_size = 0;        // rows of the token embedding table (0: tokens are hash-embedded)
  int max_positions = 0;     // the longest input the model accepts (0: no limit)
  // Where that limit comes from, for messages: "m/config.json: max_position_embeddings = 64", or
  // "one row per position in the table tensor 'wpe.weight' of shape [1024, 768]".
  std::string max_positions_origin;
  bool scale_embeddings = false;  // lut(x) · sqrt(d_model), as in the annotated transformer
  Positional positional = Positional::none;
  SinusoidLayout sinusoid = SinusoidLayout::interleaved;  // the sinusoidal table's columns
  int position_offset = 0;  // learned positions: the table row of position 0 (BART's 2)
  // fairseq's positions (M2M100, NLLB): a token with this id is padding, takes the zero row of
  // position padding_idx and is not counted; the others count from padding_idx + 1, which is
  // position_offset. nullopt: every token counts.
  std::optional<int64_t> position_pad_id;
  float pe_base = 10000.0f;     // base of the sinusoidal encoding (the paper's 10000)
  float rope_theta = 10000.0f;  // base of the rotary frequencies theta^(−2i/rotary_dim)
  int rotary_dim =
      0;  // leading dims of each q/k head that rotate (d_k · partial_rotary_factor; 0: none)
  RopeScaling rope_scaling;  // of rope_theta's frequencies (global layers only, in Gemma 3)
  float rope_local_theta =
      0;  // base of the frequencies in sliding-window layers (Gemma 3; 0: rope_theta)
  // Sliding-window attention (Mistral, Gemma 2/3, Phi-3, Qwen2 when enabled): in a sliding layer a
  // query sees the last `sliding_window` keys, itself included; the other layers see every earlier
  // key.
  int sliding_window = 0;
  std::vector<bool> sliding_layers;  // per layer of the (decoder) stack; empty: no sliding layer
  // Attention logit soft-capping (Gemma 2): scores = cap · tanh(scores / cap) before the mask (0:
  // none).
  float attn_softcap = 0;
  // The scale of q·kᵀ when the config gives one (Gemma: query_pre_attn_scalar^−½); else
  // 1/sqrt(d_k).
  std::optional<float> attn_scale;
  std::string attn_scale_source;  // what set attn_scale: "m/config.json: query_pre_attn_scalar =
                                  // 24, as 1/√24"
  // positional relative (T5): a key's offset from its query falls in one of relative_buckets
  // buckets, exact for small offsets and logarithmic up to relative_max_distance (beyond it, the
  // last); the encoder's buckets tell earlier from later keys, the causal decoder's only how far
  // back. Each stack's table is [buckets, heads], its layer 0's, added in every layer.
  int relative_buckets = 0;
  int relative_max_distance = 0;
  // The decoder's output is multiplied by this before the unembedding (T5 with tied embeddings:
  // d_model^−½); 1: as it is.
  float unembed_input_scale = 1.0f;
  int type_vocab_size = 0;  // BERT token-type embeddings (0: none)
  bool tied_embeddings =
      false;  // the unembedding (lm_head) is the token table (tie_word_embeddings)
  float final_logit_softcap = 0;  // logits become cap · tanh(logits / cap) (Gemma 2); 0: none
  // The id an encoder-decoder's decoder reads first (config.json's decoder_start_token_id: Marian's
  // pad, BART's </s>): a target text is this id, then the text's ids. nullopt: none declared, the
  // text's ids as they are.
  std::optional<int64_t> decoder_start_id;
  // The stacks are the GRUs of PyTorch's translation tutorial (Weights::recurrent), not transformer
  // layers: an encoder GRU over the source and a decoder GRU whose one map per step is Bahdanau's
  // additive attention over the encoder's outputs (arch encoder_decoder, one head, one layer each).
  bool recurrent = false;
  // mBART: a target text's ids (its labels) are read after their own last token (</s>, or the
  // language code), as modeling_mbart.py's shift_tokens_right moves it first, not after
  // decoder_start_id (which generation starts from); --ids are fed as given.
  bool decoder_starts_with_last_label = false;
  // A vision transformer's patch embedding (vision.patch > 0): the encoder reads an image.
  VisionConfig vision;

  int d_k() const { return d_qk / n_heads; }              // per-head query/key width
  int d_head_v() const { return d_v / n_heads; }          // per-head value width
  int k_rows() const { return n_kv_heads * d_k(); }       // rows of the k projection
  int v_rows() const { return n_kv_heads * d_head_v(); }  // rows of the v projection
  bool sliding(int layer) const {
    return layer < int(sliding_layers.size()) && sliding_layers[layer];
  }
};

const char* arch_name(Arch arch);  // "mha", "encoder", "decoder", "encoder-decoder"
std::optional<Arch> parse_arch(const std::string& name);
const char* activation_name(Activation a);  // "relu", "gelu", "gelu_tanh", "silu"
std::optional<Activation> parse_activation(
    const std::string& name);  // also gelu_new, gelu_pytorch_tanh
const char* positional_name(Positional p);
const char* sinusoid_layout_name(SinusoidLayout s);  // "interleaved", "halves"
std::optional<SinusoidLayout> parse_sinusoid_layout(const std::string& name);
std::optional<Positional> parse_positional(const std::string& name);
const char* norm_name(NormKind n);  // "layer_norm", "rms_norm"
std::optional<NormKind> parse_norm(const std::string& name);
const char* feed_forward_name(FeedForwardKind f);  // "plain", "gated"
const char* qk_norm_name(QkNorm n);                // "none", "per_head", "whole"
std::optional<QkNorm> parse_qk_norm(const std::string& name);
std::optional<FeedForwardKind> parse_feed_forward(const std::string& name);

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
