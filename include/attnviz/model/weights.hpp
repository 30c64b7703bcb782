// Weights: the model's tensors bound to their roles (read-only after loading).
// Shapes use the legend: D = d_model, F = d_ff, Q = d_qk, V = d_v, N = vocab, P = positions,
// K = n_kv_heads · d_k and W = n_kv_heads · d_head_v (= Q and V unless the model shares k/v heads,
// GQA).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/matrix.hpp"
#include "attnviz/model/token_table.hpp"
#include "attnviz/model/weight_matrix.hpp"

namespace attnviz {

// nn.Linear: y = x Wᵀ + b (Conv1D: y = x W + b, its weight stored [in, out]).
struct Linear {
  WeightMatrix weight;  // [out_features, in_features] as nn.Linear's, whatever the storage
  RowVector bias;       // [out_features], or empty when bias=False
};

// nn.LayerNorm(D): γ and β (β empty for nanoGPT's bias=False); RMSNorm(D): the gain only.
struct LayerNormWeights {
  RowVector weight;  // [D]
  RowVector bias;    // [D] or empty
};

// One multi-head attention module.
struct AttentionWeights {
  Linear q;                   // [Q, D]
  Linear k;                   // [K, kdim]
  Linear v;                   // [W, vdim]
  std::optional<Linear> out;  // [D, V] (absent in qkv-linears without `out` and in fused-qkv)
  RowVector q_norm;           // [d_k] RMSNorm gain of every q head (Qwen3), or empty
  RowVector k_norm;           // [d_k] RMSNorm gain of every k head, or empty
  RowVector sink_logits;      // [n_heads] learned sink logits (gpt-oss's `sinks`), or empty
};

// Position-wise feed-forward network: down(act(up(x))), or gated: down(act(gate(x)) ⊙ up(x)).
struct FeedForwardWeights {
  Linear up;                   // [F, D]  (linear1, c_fc, intermediate.dense, up_proj)
  Linear down;                 // [D, F]  (linear2, c_proj, output.dense, down_proj)
  std::optional<Linear> gate;  // [F, D]  (gate_proj) in a gated FFN
};

// A mixture of experts in the FFN slot: the router [n_experts, D] and each expert's FFN, bound
// when a token is first routed to it (a loaded model reads only the experts its tokens use).
struct ExpertWeights {
  Linear router;  // [n_experts, D]  (Mixtral's block_sparse_moe.gate, Qwen3-MoE's mlp.gate)
  int n_experts = 0;
  std::function<FeedForwardWeights(int expert)> expert;
};

// One transformer layer. Norms sit where the layout puts them: after (post-norm) or before
// (pre-norm) the sub-layer they are named after.
struct LayerWeights {
  AttentionWeights self_attn;
  std::optional<AttentionWeights> cross_attn;
  std::optional<FeedForwardWeights> ffn;
  std::optional<ExpertWeights> experts;       // in the FFN slot instead of ffn (mixture of experts)
  std::optional<LayerNormWeights> norm_self;  // norm1 / ln_1 / attention.output.LayerNorm
  std::optional<LayerNormWeights> norm_cross;  // norm2 of a decoder layer
  std::optional<LayerNormWeights> norm_ffn;    // norm2 (norm3) / ln_2 / output.LayerNorm
  // Gemma 2's "sandwich": a second norm on each sub-layer's output, before the residual is added.
  std::optional<LayerNormWeights> norm_self_post;  // post_attention_layernorm (Gemma 2)
  std::optional<LayerNormWeights> norm_ffn_post;   // post_feedforward_layernorm (Gemma 2)
  // DINOv2's layer scale: each sub-layer's output multiplied by a learned [D] gain (λ) before the
  // residual is added (Touvron et al. 2021, CaiT); empty: none.
  RowVector layer_scale_self;  // layer_scale1.lambda1
  RowVector layer_scale_ffn;   // layer_scale2.lambda1
};

// A stack's layers: held in memory (models built in code), or bound from the file one at a time as
// forward reaches them (loaded models: their shapes were checked at load, their weights stay in the
// mapped file in its stored dtype until then).
struct StackWeights {
  std::vector<LayerWeights> layers;  // in memory, or empty
  int n_bound = 0;                   // else this many layers,
  std::function<LayerWeights(int layer)>
      bind_layer;  // each bound on request: F32 viewed, others converted
  std::optional<LayerNormWeights> final_norm;  // encoder.norm / decoder.norm / ln_f
  // An encoder-decoder's embedding parts of this stack's own, used instead of EmbeddingWeights'
  // (BART's learned position table and layernorm_embedding per stack).
  std::optional<TokenTable> position;          // [P, D]
  std::optional<LayerNormWeights> embed_norm;  // [D]
  // T5's relative position bias of the self-attention, [buckets, heads] (empty: none).
  Matrix relative_bias;
  // An encoder-decoder's token table of this stack's own, used instead of EmbeddingWeights' (the
  // translation tutorial's source and target vocabularies).
  std::optional<TokenTable> token;

  int n_layers() const { return bind_layer ? n_bound : static_cast<int>(layers.size()); }
  // Layer l: the one in memory, or bound into `holder` (which owns it until the caller resets it).
  const LayerWeights& layer(int l, std::optional<LayerWeights>& holder) const {
    if (!bind_layer) return layers.at(static_cast<size_t>(l));
    holder.reset();  // the previous layer goes before the next is converted
    return holder.emplace(bind_layer(l));
  }
};

// A vision transformer's embedding (Config::vision): the patch projection, the prefix tokens and
// the pretraining grid's positions.
struct PatchEmbeddingWeights {
  Linear patch;            // [D, C·P·P]: the Conv2d's kernel, flattened by channel, row, column
  RowVector cls;           // [D] the class token, or empty
  RowVector distillation;  // [D] DeiT's distillation token, or empty
  Matrix registers;        // [R, D] DINOv2's register tokens (no positions), or 0 rows
  // [prefix + grid², D]: a row per class / distillation token (those that have positions), then
  // the grid's patches row by row; 0 rows: none.
  Matrix position;
};

struct EmbeddingWeights {
  std::optional<TokenTable> token;    // [N, D]  (nn.Embedding, wte, word_embeddings)
  std::optional<TokenTable> unembed;  // [N, D]  lm_head, when the file has one
  RowVector unembed_bias;  // [N] added to the logits (Marian's final_logits_bias), or empty
  std::optional<TokenTable> position;  // [P, D]  learned positions (wpe, position_embeddings)
  // [P, D] the sinusoidal table as the file stores it (Marian's embed_positions): the rows an input
  // uses must equal the computed ones. sinusoid_tensor names it for messages.
  std::optional<TokenTable> sinusoid;
  std::string sinusoid_tensor;
  std::optional<TokenTable> token_type;          // [types, D]  BERT token types
  std::optional<LayerNormWeights> norm;          // BERT embeddings.LayerNorm; CLIP's pre_layrnorm
  std::optional<PatchEmbeddingWeights> patches;  // a vision transformer's (Config::vision)
};

// One layer of nn.GRU (batch_first): weight_ih_l0 [3H, I], weight_hh_l0 [3H, H], bias_ih_l0 and
// bias_hh_l0 [3H], the gates' rows in PyTorch's order r, z, n.
struct GruWeights {
  Matrix w_ih, w_hh;
  RowVector b_ih, b_hh;
  int hidden() const { return static_cast<int>(w_hh.cols()); }
};

// BahdanauAttention(hidden_size) of the translation tutorial: Wa, Ua [H, H] with biases, Va [1, H]
// with its bias.
struct AdditiveAttentionWeights {
  Matrix wa, ua;
  RowVector ba, bu, va;
  float bv = 0;
};

// The recurrent stacks of PyTorch's translation tutorial (Config::recurrent): EncoderRNN's GRU over
// the source, AttnDecoderRNN's attention and GRU (input [embedding; context], 2H wide). The token
// tables are the stacks' `token`, the decoder's `out` the unembedding and its bias.
struct RecurrentWeights {
  GruWeights encoder;
  AdditiveAttentionWeights attention;
  GruWeights decoder;
};

struct Weights {
  EmbeddingWeights embed;
  StackWeights encoder;  // the only stack of mha / encoder models
  StackWeights decoder;  // the only stack of decoder models; the second of encoder_decoder
  std::optional<RecurrentWeights> recurrent;  // the tutorial's GRUs (Config::recurrent)
};

}  // namespace attnviz
